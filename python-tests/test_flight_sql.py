"""Arrow Flight SQL (`ember server --flight-sql-port`), driven by ADBC's Flight SQL driver as a
BI tool drives it: a DBAPI session that creates a table, inserts, queries (with parameters, a
large streamed result, an error) and lists metadata; the Spark Connect port's token guards it.
Every mode. The answers are plain SQL ones (the same queries' Spark answers are recorded in the
suite's other files)."""

import pytest

from conftest import EmberServer, ember_binary, free_port

dbapi = pytest.importorskip("adbc_driver_flightsql.dbapi")
flightsql = pytest.importorskip("adbc_driver_flightsql")


@pytest.fixture(scope="module")
def flight(request, ember_mode, tmp_path_factory):
    if ember_mode == "spark":
        pytest.skip("an Ember endpoint")
    port = free_port()
    server = EmberServer(
        ember_binary(request.config),
        ember_mode,
        ["--flight-sql-port", str(port)],
        workdir=tmp_path_factory.mktemp("flight-sql"),
    )
    yield f"grpc://127.0.0.1:{port}"
    server.stop()


def connect(url, **db_kwargs):
    return dbapi.connect(url, db_kwargs=db_kwargs, autocommit=True)


def test_queries(flight):
    with connect(flight) as conn, conn.cursor() as cur:
        cur.execute("SELECT id, id * 2 AS doubled FROM range(5)")
        assert cur.fetchall() == [(i, 2 * i) for i in range(5)]
        assert [d[0] for d in cur.description] == ["id", "doubled"]
        cur.execute("SELECT * FROM range(100000)")
        table = cur.fetch_arrow_table()
        assert table.num_rows == 100000 and table.column(0).to_pylist()[-1] == 99999
        cur.execute("SELECT ? + 1 AS x, ? AS s", parameters=(41, "z"))
        assert cur.fetchall() == [(42, "z")]


def test_table_lifecycle_and_metadata(flight):
    with connect(flight) as conn:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE flight_t (a INT, b STRING) USING parquet")
            cur.execute("INSERT INTO flight_t VALUES (1, 'x'), (2, 'y')")
            cur.execute("SELECT * FROM flight_t ORDER BY a")
            assert cur.fetchall() == [(1, "x"), (2, "y")]
        info = conn.adbc_get_info()
        assert info["vendor_name"] == "Ember"
        assert set(conn.adbc_get_table_types()) >= {"TABLE"}
        catalogs = conn.adbc_get_objects(depth="all").read_all().to_pylist()
        assert [c["catalog_name"] for c in catalogs] == ["spark_catalog"]
        schemas = {s["db_schema_name"]: s for s in catalogs[0]["catalog_db_schemas"]}
        tables = {t["table_name"]: t for t in schemas["default"]["db_schema_tables"]}
        assert tables["flight_t"]["table_type"] == "TABLE"
        assert [c["column_name"] for c in tables["flight_t"]["table_columns"]] == ["a", "b"]
        # Spark tables have no primary keys: an empty answer, not an error.
        keys = conn.adbc_get_objects(depth="all", table_name_filter="flight_t").read_all().to_pylist()
        assert keys[0]["catalog_db_schemas"][0]["db_schema_tables"][0]["table_constraints"] == []
        schema = conn.adbc_get_table_schema("flight_t")
        assert [(f.name, str(f.type)) for f in schema] == [("a", "int32"), ("b", "string")]
        with conn.cursor() as cur:
            cur.execute("DROP TABLE flight_t")
            cur.execute("SHOW TABLES")
            assert "flight_t" not in [r[1] for r in cur.fetchall()]


def test_errors_carry_spark_classes(flight):
    with connect(flight) as conn, conn.cursor() as cur:
        with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
            cur.execute("SELECT 1/0")
            cur.fetchall()
        with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
            cur.execute("SELECT * FROM flight_missing")
        # The session is still usable.
        cur.execute("SELECT 1 AS one")
        assert cur.fetchall() == [(1,)]


def test_token(request, ember_mode, tmp_path):
    if ember_mode != "local":
        pytest.skip("the token check does not depend on the mode")
    port = free_port()
    server = EmberServer(
        ember_binary(request.config),
        "local",
        ["--flight-sql-port", str(port), "--auth-token", "s3cret"],
        workdir=tmp_path,
    )
    url = f"grpc://127.0.0.1:{port}"
    try:
        with pytest.raises(Exception, match="(?i)unauthenticated"):
            with connect(url) as conn, conn.cursor() as cur:
                cur.execute("SELECT 1")
        header = flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value
        with connect(url, **{header: "Bearer s3cret"}) as conn, conn.cursor() as cur:
            cur.execute("SELECT 1 AS one")
            assert cur.fetchall() == [(1,)]
    finally:
        server.stop()


def _proto_field(number, data):
    """One length-delimited protobuf field (enough to spell Flight SQL commands by hand)."""

    def varint(n):
        out = b""
        while True:
            low, n = n & 0x7F, n >> 7
            out += bytes([low | (0x80 if n else 0)])
            if not n:
                return out

    return varint((number << 3) | 2) + varint(len(data)) + data


def test_primary_keys(flight):
    """GetPrimaryKeys (which BI tools ask per table): Spark tables have none, an empty answer
    in Flight SQL's shape."""
    import pyarrow.flight as pa_flight

    command = _proto_field(1, b"type.googleapis.com/arrow.flight.protocol.sql.CommandGetPrimaryKeys") + _proto_field(
        2, _proto_field(3, b"any_table")
    )
    client = pa_flight.FlightClient(flight)
    info = client.get_flight_info(pa_flight.FlightDescriptor.for_command(command))
    assert info.schema.names == ["catalog_name", "db_schema_name", "table_name", "column_name", "key_name", "key_sequence"]
    assert client.do_get(info.endpoints[0].ticket).read_all().num_rows == 0


def test_cancel_query(flight):
    """CancelQuery of a statement's FlightInfo answers CANCELLED (results not fetched yet are
    dropped) and the port goes on serving."""
    import pyarrow.flight as pa_flight

    client = pa_flight.FlightClient(flight)
    statement = _proto_field(1, b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery") + _proto_field(
        2, _proto_field(1, b"SELECT * FROM range(10)")
    )
    info = client.get_flight_info(pa_flight.FlightDescriptor.for_command(statement))
    request = _proto_field(1, b"type.googleapis.com/arrow.flight.protocol.sql.ActionCancelQueryRequest") + _proto_field(
        2, _proto_field(1, info.serialize())
    )
    results = list(client.do_action(pa_flight.Action("CancelQuery", request)))
    # ActionCancelQueryResult { result: CANCEL_RESULT_CANCELLED (1) }, packed in an Any.
    assert len(results) == 1 and results[0].body.to_pybytes().endswith(b"\x08\x01")
    with connect(flight) as conn, conn.cursor() as cur:
        cur.execute("SELECT 1 AS one")
        assert cur.fetchall() == [(1,)]


def test_cancel_flight_info(flight):
    """Flight's CancelFlightInfo action (newer clients' cancellation) answers CANCELLED."""
    import pyarrow.flight as pa_flight

    client = pa_flight.FlightClient(flight)
    statement = _proto_field(1, b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery") + _proto_field(
        2, _proto_field(1, b"SELECT * FROM range(10)")
    )
    info = client.get_flight_info(pa_flight.FlightDescriptor.for_command(statement))
    request = _proto_field(1, info.serialize())
    results = list(client.do_action(pa_flight.Action("CancelFlightInfo", request)))
    # CancelFlightInfoResult { status: CANCEL_STATUS_CANCELLED (1) }.
    assert len(results) == 1 and results[0].body.to_pybytes() == b"\x08\x01"
