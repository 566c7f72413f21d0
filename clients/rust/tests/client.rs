//! The Apache Spark Connect Rust client (`apache-spark-connect`, no Python, no JVM) against a
//! real `ember` binary in each execution mode (`EMBER_MODES`, default all three): SQL and
//! DataFrame queries, aggregation, joins, temporary views, errors and the session's version.
//! The binary is `EMBER_BIN`, else `$CARGO_TARGET_DIR/debug/ember` (default
//! `~/.cache/ember/target`).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use spark_connect::column::{col, lit};
use spark_connect::row::Value;
use spark_connect::session::SparkSession;

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> PathBuf {
    if let Ok(bin) = std::env::var("EMBER_BIN") {
        return PathBuf::from(bin);
    }
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/ember/target")
        });
    target.join("debug").join("ember")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(mode: &str, dir: &std::path::Path) -> Server {
    let port = free_port();
    let mut cmd = Command::new(binary());
    cmd.args([
        "server",
        "--port",
        &port.to_string(),
        "--mode",
        mode,
        "--ui-port",
        "0",
    ])
    .current_dir(dir)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    if mode != "local" {
        cmd.args(["--workers", "2"]);
    }
    if mode == "cluster" {
        cmd.args(["--driver-port", "0"]);
    }
    let child = cmd.spawn().expect("ember starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "ember did not start in {mode} mode"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Server {
        child,
        url: format!("sc://127.0.0.1:{port}"),
    }
}

fn longs(rows: &[spark_connect::row::Row], i: usize) -> Vec<i64> {
    rows.iter()
        .map(|r| match r.get(i).expect("a column") {
            Value::Long(v) => *v,
            Value::Integer(v) => i64::from(*v),
            other => panic!("not an integer: {other:?}"),
        })
        .collect()
}

fn strings(rows: &[spark_connect::row::Row], i: usize) -> Vec<String> {
    rows.iter()
        .map(|r| match r.get(i).expect("a column") {
            Value::String(s) => s.clone(),
            other => panic!("not a string: {other:?}"),
        })
        .collect()
}

fn modes() -> Vec<String> {
    std::env::var("EMBER_MODES")
        .unwrap_or_else(|_| "local,local-cluster,cluster".to_string())
        .split(',')
        .map(str::to_string)
        .collect()
}

fn check(session: &SparkSession) {
    // SQL.
    let rows = session
        .sql("SELECT id, id * 2 AS doubled FROM range(5) WHERE id > 1 ORDER BY id")
        .unwrap()
        .collect()
        .unwrap();
    assert_eq!(longs(&rows, 0), vec![2, 3, 4]);
    assert_eq!(longs(&rows, 1), vec![4, 6, 8]);
    // DataFrames: filter, select, count.
    let df = session.range(10).unwrap().filter(col("id").gt(lit(6)));
    assert_eq!(longs(&df.collect().unwrap(), 0), vec![7, 8, 9]);
    assert_eq!(session.range(100).unwrap().count().unwrap(), 100);
    let renamed = session.range(3).unwrap().select(vec![col("id").alias("x")]);
    assert_eq!(renamed.columns().unwrap(), vec!["x".to_string()]);
    // Aggregation, a join and a temporary view through SQL.
    session
        .sql("CREATE OR REPLACE TEMP VIEW t AS SELECT id % 3 AS k, id AS v FROM range(9)")
        .unwrap()
        .collect()
        .unwrap();
    let rows = session
        .sql("SELECT k, sum(v) AS s FROM t GROUP BY k ORDER BY k")
        .unwrap()
        .collect()
        .unwrap();
    assert_eq!(longs(&rows, 0), vec![0, 1, 2]);
    assert_eq!(longs(&rows, 1), vec![9, 12, 15]);
    let rows = session
        .sql("SELECT a.k, b.name FROM (SELECT DISTINCT k FROM t) a JOIN VALUES (0, 'zero'), (2, 'two') AS b(k, name) ON a.k = b.k ORDER BY a.k")
        .unwrap()
        .collect()
        .unwrap();
    assert_eq!(
        strings(&rows, 1),
        vec!["zero".to_string(), "two".to_string()]
    );
    // Spark's errors reach the client.
    let error = session
        .sql("SELECT * FROM no_such_table")
        .and_then(|df| df.collect());
    let message = format!("{:?}", error.err().expect("an error"));
    assert!(message.contains("TABLE_OR_VIEW_NOT_FOUND"), "{message}");
    // The version the server answers as.
    assert_eq!(session.version().unwrap(), "4.3.0");
}

#[test]
fn rust_client_in_every_mode() {
    let dir = std::env::temp_dir().join(format!("ember-rust-client-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for mode in modes() {
        let server = start(&mode, &dir);
        let session = SparkSession::builder()
            .remote(&server.url)
            .get_or_create()
            .unwrap_or_else(|e| panic!("session in {mode} mode: {e:?}"));
        check(&session);
        let _ = session.stop();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
