"""TLS on the Spark Connect port, a cluster secured by TLS and a shared secret, and
``--allowed-paths`` (issue 25, must-holds 2 and 3).

A throwaway CA and certificates are made at run time with the ``cryptography`` package. The
PySpark client finds the CA through ``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH`` (gRPC's default
roots), so those clients run in a child process of the suite's own interpreter. Ember's own
flags: nothing here is compared with Spark."""

import datetime
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
import pytest

from conftest import RECORD, EmberServer, ember_binary, free_port, new_session

TOKEN = "tls-" + uuid.uuid4().hex


@pytest.fixture(autouse=True)
def ember_only():
    if RECORD:
        pytest.skip("Ember's own server flags")


def make_pki(directory: Path, names=("localhost",), ips=("127.0.0.1",)):
    """A CA, and a certificate with its key signed by it for `names` and `ips` (PEM files)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ember test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    sans = [x509.DNSName(n) for n in names] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage(
                [x509.oid.ExtendedKeyUsageOID.SERVER_AUTH, x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    pem = serialization.Encoding.PEM
    (directory / "ca.pem").write_bytes(ca.public_bytes(pem))
    (directory / "cert.pem").write_bytes(cert.public_bytes(pem))
    (directory / "key.pem").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return directory / "ca.pem", directory / "cert.pem", directory / "key.pem"


# A PySpark client in a child process that trusts `ca` (gRPC's default roots come from the
# environment when first used).
CLIENT = r"""
import os
import sys
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
spark = SparkSession.builder.remote(sys.argv[1]).create()
df = spark.range(0, 1000, 1, 4).withColumn("k", F.col("id") % 7)
agg = df.groupBy("k").agg(F.sum("id").alias("s"))
joined = agg.join(spark.range(7).withColumnRenamed("id", "k"), "k").orderBy("k")
print("ANSWER", [(r.k, r.s) for r in joined.collect()])
# User code sees neither the cluster secret nor the token in its environment.
secrets = F.udf(lambda _: str([os.environ.get(k) for k in ("EMBER_CLUSTER_SECRET", "SPARK_CONNECT_AUTHENTICATE_TOKEN")]))
print("UDF_ENV", spark.range(1).select(secrets("id")).first()[0])
spark.stop()
"""


def expected_answer():
    sums = {}
    for i in range(1000):
        sums[i % 7] = sums.get(i % 7, 0) + i
    return "ANSWER " + str(sorted(sums.items()))


def run_client(url, ca=None, timeout=180):
    env = {k: v for k, v in os.environ.items() if k != "SPARK_CONNECT_AUTHENTICATE_TOKEN"}
    if ca is not None:
        env["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"] = str(ca)
    # A script file, not `python -c`: PySpark takes a main module without a file for doctests.
    script = Path(os.environ.get("TMPDIR", "/tmp")) / f"ember_tls_client_{os.getpid()}.py"
    script.write_text(CLIENT)
    done = subprocess.run(
        [sys.executable, str(script), url], capture_output=True, text=True, timeout=timeout, env=env
    )
    done.stderr = done.stdout[-2000:] + done.stderr
    return done


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tls_server(request, ember_mode, pki, tmp_path_factory):
    _, cert, key = pki
    workdir = tmp_path_factory.mktemp("ember-tls")
    flight_port = free_port()
    server = EmberServer(
        ember_binary(request.config),
        ember_mode,
        extra_args=["--tls-cert", str(cert), "--tls-key", str(key), "--auth-token", TOKEN,
                    "--flight-sql-port", str(flight_port)],
        workdir=workdir,
    )
    server.flight_port = flight_port
    yield server
    server.stop()


# ---------------------------------------------------------------------------------------------
# Spark Connect over TLS


def test_pyspark_over_tls_with_a_token(tls_server, pki):
    ca, _, _ = pki
    done = run_client(f"sc://localhost:{tls_server.port}/;use_ssl=true;token={TOKEN}", ca)
    assert done.returncode == 0, done.stderr[-3000:]
    assert expected_answer() in done.stdout
    assert "TLS: yes" in tls_server.log_path.read_text()


def ssl_stub(port, ca_pem=None, token=None):
    from pyspark.sql.connect.proto import base_pb2_grpc

    credentials = grpc.ssl_channel_credentials(root_certificates=ca_pem)
    if token is not None:
        credentials = grpc.composite_channel_credentials(
            credentials, grpc.access_token_call_credentials(token)
        )
    channel = grpc.secure_channel(f"localhost:{port}", credentials)
    return channel, base_pb2_grpc.SparkConnectServiceStub(channel)


def config_request():
    import pyspark.sql.connect.proto as pb2

    return pb2.ConfigRequest(
        session_id=str(uuid.uuid4()),
        user_context=pb2.UserContext(user_id="u"),
        operation=pb2.ConfigRequest.Operation(get_all=pb2.ConfigRequest.GetAll()),
    )


def test_token_is_still_required_over_tls(tls_server, pki):
    ca, _, _ = pki
    for token, message in [(None, "No authentication token provided"), ("wrong", "Invalid authentication token")]:
        channel, stub = ssl_stub(tls_server.port, ca.read_bytes(), token)
        with channel, pytest.raises(grpc.RpcError) as raised:
            stub.Config(config_request(), timeout=20)
        assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert raised.value.details() == message
    channel, stub = ssl_stub(tls_server.port, ca.read_bytes(), TOKEN)
    with channel:
        assert stub.Config(config_request(), timeout=20).session_id


def test_plain_or_untrusting_clients_cannot_talk_to_the_tls_port(tls_server, pki, tmp_path):
    # Plain gRPC (no TLS) to the TLS port: the connection fails, no answer comes back.
    from pyspark.sql.connect.proto import base_pb2_grpc

    channel = grpc.insecure_channel(f"127.0.0.1:{tls_server.port}")
    with channel, pytest.raises(grpc.RpcError) as raised:
        base_pb2_grpc.SparkConnectServiceStub(channel).Config(config_request(), timeout=10)
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE, raised.value
    # TLS to a client that trusts another CA: the handshake fails.
    other_ca, _, _ = make_pki(tmp_path / "other")
    channel, stub = ssl_stub(tls_server.port, other_ca.read_bytes(), TOKEN)
    with channel, pytest.raises(grpc.RpcError) as raised:
        stub.Config(config_request(), timeout=10)
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE, raised.value
    # The server is unharmed.
    channel, stub = ssl_stub(tls_server.port, pki[0].read_bytes(), TOKEN)
    with channel:
        assert stub.Config(config_request(), timeout=20).session_id


def test_a_silent_connection_is_closed_after_the_handshake_timeout(tls_server, ember_mode):
    if ember_mode != "local":
        pytest.skip("the same listener in every mode")
    import socket

    with socket.create_connection(("127.0.0.1", tls_server.port)) as silent:
        silent.settimeout(30)
        started = time.time()
        assert silent.recv(1) == b""  # closed by the server, no handshake ever started
        assert time.time() - started < 25


def test_flight_sql_port_uses_the_same_certificate(tls_server, pki):
    flightsql = pytest.importorskip("adbc_driver_flightsql")
    from adbc_driver_flightsql import dbapi

    options = {
        flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value: f"Bearer {TOKEN}",
        flightsql.DatabaseOptions.TLS_ROOT_CERTS.value: pki[0].read_text(),
    }
    url = f"grpc+tls://localhost:{tls_server.flight_port}"
    with dbapi.connect(url, db_kwargs=options, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("SELECT 41 + 1 AS answer")
        assert cur.fetchall() == [(42,)]
    # Plain gRPC to the TLS port fails.
    with pytest.raises(Exception):
        plain = {flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value: f"Bearer {TOKEN}"}
        with dbapi.connect(f"grpc://127.0.0.1:{tls_server.flight_port}", db_kwargs=plain,
                           autocommit=True) as conn, conn.cursor() as cur:
            cur.execute("SELECT 1")


def test_bad_certificate_files_stop_the_server_at_start(request, ember_mode, tmp_path):
    if ember_mode != "local":
        pytest.skip("the same flag handling in every mode")
    (tmp_path / "empty.pem").write_text("not a certificate\n")
    port = free_port()
    done = subprocess.run(
        [str(ember_binary(request.config)), "server", "--port", str(port),
         "--tls-cert", str(tmp_path / "empty.pem"), "--tls-key", str(tmp_path / "empty.pem")],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert done.returncode != 0
    assert "--tls-cert" in done.stdout + done.stderr


# ---------------------------------------------------------------------------------------------
# The cluster: TLS and a shared secret between driver, workers and their Flight ports


def cluster_flags(pki_files):
    ca, cert, key = pki_files
    return ["--cluster-tls-cert", str(cert), "--cluster-tls-key", str(key), "--cluster-ca", str(ca)]


def only_cluster(ember_mode):
    if ember_mode != "cluster":
        pytest.skip("starts its own cluster processes")


@pytest.mark.parametrize("one_name", [False, True], ids=["host-names", "cluster-tls-domain"])
def test_started_workers_use_cluster_tls_and_a_generated_secret(request, ember_mode, pki, tmp_path, one_name):
    only_cluster(ember_mode)
    flags = cluster_flags(pki)
    if one_name:
        # One certificate for a name no process is reached at: --cluster-tls-domain checks it.
        flags = cluster_flags(make_pki(tmp_path / "named", names=("ember-cluster",), ips=()))
        flags += ["--cluster-tls-domain", "ember-cluster"]
    server = EmberServer(ember_binary(request.config), "cluster", extra_args=flags, workdir=tmp_path)
    try:
        done = run_client(server.url)
        assert done.returncode == 0, done.stderr[-3000:] + server.log_path.read_text()[-3000:]
        assert expected_answer() in done.stdout
    finally:
        server.stop()
    log = server.log_path.read_text()
    assert re.search(r"driver service listening on https://.*cluster secret: yes, TLS: yes", log), log
    assert "UDF_ENV [None, None]" in done.stdout
    # The secret never appears on a command line.
    assert "EMBER_CLUSTER_SECRET=" not in log


def start_worker(binary, driver_port, flags, log_path, env=None):
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [str(binary), "worker", "--driver", f"http://127.0.0.1:{driver_port}", "--slots", "2", *flags],
        stdout=log, stderr=subprocess.STDOUT,
        env={**{k: v for k, v in os.environ.items() if k != "EMBER_CLUSTER_SECRET"}, **(env or {})},
    )
    return proc, log


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_for(predicate, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_workers_without_the_secret_are_refused(request, ember_mode, pki, tmp_path):
    only_cluster(ember_mode)
    binary = ember_binary(request.config)
    secret = tmp_path / "secret"
    secret.write_text(uuid.uuid4().hex + "\n")
    wrong = tmp_path / "wrong"
    wrong.write_text(uuid.uuid4().hex + "\n")
    driver_port = free_port()
    flags = cluster_flags(pki)
    server = EmberServer(
        binary, "cluster",
        extra_args=["--workers", "0", "--driver-port", str(driver_port), "--cluster-secret-file", str(secret), *flags],
        workdir=tmp_path,
    )
    procs = []
    try:
        good = [start_worker(binary, driver_port, ["--cluster-secret-file", str(secret), *flags], tmp_path / f"good{i}.log")
                for i in range(2)]
        bad = start_worker(binary, driver_port, ["--cluster-secret-file", str(wrong), *flags], tmp_path / "bad.log")
        none = start_worker(binary, driver_port, flags, tmp_path / "none.log")
        plain = start_worker(binary, driver_port, ["--cluster-secret-file", str(secret)], tmp_path / "plain.log")
        procs = [p for p, _ in good + [bad, none, plain]]
        # The refused workers exit with a clear message.
        for proc, _ in [bad, none]:
            proc.wait(timeout=60)
            assert proc.returncode != 0
        for name in ["bad.log", "none.log"]:
            text = (tmp_path / name).read_text()
            assert "refused this worker" in text and "cluster secret" in text, text
        assert wait_for(lambda: server.log_path.read_text().count("worker joined") >= 2)
        done = run_client(server.url)
        assert done.returncode == 0, done.stderr[-3000:] + server.log_path.read_text()[-3000:]
        assert expected_answer() in done.stdout
        # Only the two good workers joined (the plain one cannot speak TLS to the driver).
        assert server.log_path.read_text().count("worker joined") == 2
        # A worker's Flight port answers nobody without the secret, even over TLS.
        worker_log = (tmp_path / "good0.log").read_text()
        port = int(re.search(r"listening on http://127\.0\.0\.1:(\d+)", worker_log).group(1))
        import pyarrow.flight as flight

        client = flight.FlightClient(f"grpc+tls://localhost:{port}", tls_root_certs=pki[0].read_bytes())
        with pytest.raises(flight.FlightUnauthenticatedError):
            client.do_get(flight.Ticket(b"")).read_all()
        client.close()
    finally:
        for p in procs:
            stop(p)
        for _, log in good + [bad, none, plain] if procs else []:
            log.close()
        server.stop()


# ---------------------------------------------------------------------------------------------
# --allowed-paths


@pytest.fixture(scope="module")
def sandbox(request, ember_mode, tmp_path_factory):
    base = tmp_path_factory.mktemp("sandbox")
    allowed = base / "allowed"
    outside = base / "outside"
    allowed.mkdir()
    outside.mkdir()
    (allowed / "link").symlink_to(outside, target_is_directory=True)
    workdir = base / "work"
    workdir.mkdir()
    server = EmberServer(
        ember_binary(request.config), ember_mode,
        extra_args=["--allowed-paths", f"{allowed},s3a://allowed-bucket/data"], workdir=workdir,
    )
    yield server, allowed, outside
    server.stop()


@pytest.fixture(scope="module")
def sandboxed(sandbox):
    server, allowed, outside = sandbox
    spark = new_session(server.url)
    # Data outside, written by someone else.
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": [1, 2, 3]}), outside / "data.parquet")
    yield spark, allowed, outside
    spark.stop()


def refused(action):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as raised:
        action()
    assert raised.value.getCondition() == "INSUFFICIENT_PERMISSIONS", raised.value
    assert "--allowed-paths" in str(raised.value)
    return raised.value


def test_reads_and_writes_inside_the_allowed_paths_work(sandboxed):
    spark, allowed, _ = sandboxed
    spark.range(5).write.mode("overwrite").parquet(str(allowed / "out"))
    assert spark.read.parquet(str(allowed / "out")).count() == 5
    assert spark.sql(f"SELECT count(*) FROM parquet.`{allowed / 'out'}`").first()[0] == 5
    # The warehouse is always allowed.
    spark.range(3).write.mode("overwrite").saveAsTable("sandboxed_managed")
    assert spark.table("sandboxed_managed").count() == 3
    spark.sql("DROP TABLE sandboxed_managed")
    spark.sql(f"CREATE TABLE sandboxed_external (a LONG) USING parquet LOCATION '{allowed / 'ext'}'")
    spark.sql("INSERT INTO sandboxed_external VALUES (1)")
    assert spark.table("sandboxed_external").count() == 1
    spark.sql("DROP TABLE sandboxed_external")


def test_reads_outside_are_refused(sandboxed):
    spark, allowed, outside = sandboxed
    target = outside / "data.parquet"
    error = refused(lambda: spark.read.parquet(str(target)).collect())
    assert str(target) in str(error)
    refused(lambda: spark.read.parquet(f"file://{target}").collect())
    refused(lambda: spark.read.parquet(f"{allowed}/../outside/data.parquet").collect())
    refused(lambda: spark.read.parquet(str(allowed / "link" / "data.parquet")).collect())
    refused(lambda: spark.read.parquet(str(allowed / "link")).collect())
    refused(lambda: spark.read.parquet(f"{outside}/*.parquet").collect())
    refused(lambda: spark.read.text(str(target)).collect())
    refused(lambda: spark.sql(f"SELECT * FROM parquet.`{target}`").collect())
    refused(lambda: spark.read.parquet("s3a://other-bucket/data/x.parquet").collect())
    refused(lambda: spark.read.parquet("s3a://allowed-bucket/data/../secret/x.parquet").collect())


def test_a_link_inside_an_allowed_directory_cannot_be_read_through(sandboxed):
    spark, allowed, outside = sandboxed
    listed = allowed / "listed"
    listed.mkdir(exist_ok=True)
    (listed / "part-0.parquet").symlink_to(outside / "data.parquet")
    refused(lambda: spark.read.parquet(str(listed)).collect())


def test_writes_outside_are_refused(sandboxed):
    spark, allowed, outside = sandboxed
    refused(lambda: spark.range(1).write.parquet(str(outside / "w1")))
    refused(lambda: spark.range(1).write.parquet(f"{allowed}/../outside/w2"))
    refused(lambda: spark.range(1).write.parquet(str(allowed / "link" / "w3")))
    refused(lambda: spark.range(1).write.parquet("s3a://other-bucket/w4"))
    refused(lambda: spark.sql(f"CREATE TABLE sandboxed_out (a INT) USING parquet LOCATION '{outside / 'w5'}'"))
    refused(lambda: spark.sql(f"CREATE DATABASE sandboxed_db LOCATION '{outside / 'w6'}'"))
    refused(lambda: spark.range(1).write.option("path", str(outside / "w7")).saveAsTable("sandboxed_path"))
    for name in ["w1", "w2", "w3", "w4", "w5", "w6", "w7"]:
        assert not (outside / name).exists(), name
