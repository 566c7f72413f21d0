"""Security and robustness: token authentication on the Spark Connect port, a warehouse that
table and database names cannot escape, DROP that deletes only what Ember created, and client
data or plans that cannot crash or wedge the server. Runs in every mode of ``--ember-modes``.

Spark's answers were observed on a real Spark 4.3 Connect server: started with
``--conf spark.connect.authenticate.token=...`` for authentication (``spark-reference`` cannot
pass that flag, so those messages are written here), and recorded into ``expected/`` for the
name rules."""

import uuid

import grpc
import pytest

from conftest import RECORD, EmberServer, ember_binary, new_session

TOKEN = "s3cret-" + uuid.uuid4().hex


def ember_only():
    if RECORD:
        pytest.skip("Ember's own server flags")


def grpc_stub(port):
    from pyspark.sql.connect.proto import base_pb2_grpc

    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    return channel, base_pb2_grpc.SparkConnectServiceStub(channel)


def config_request():
    import pyspark.sql.connect.proto as pb2

    return pb2.ConfigRequest(
        session_id=str(uuid.uuid4()),
        user_context=pb2.UserContext(user_id="u"),
        operation=pb2.ConfigRequest.Operation(get_all=pb2.ConfigRequest.GetAll()),
    )


def sql_command_request(session_id, sql):
    import pyspark.sql.connect.proto as pb2

    command = pb2.Command(sql_command=pb2.SqlCommand(input=pb2.Relation(sql=pb2.SQL(query=sql))))
    return pb2.ExecutePlanRequest(
        session_id=session_id,
        user_context=pb2.UserContext(user_id="u"),
        operation_id=str(uuid.uuid4()),
        plan=pb2.Plan(command=command),
    )


@pytest.fixture(scope="module")
def token_server(request, ember_mode, tmp_path_factory):
    ember_only()
    workdir = tmp_path_factory.mktemp("ember-token")
    server = EmberServer(ember_binary(request.config), ember_mode, extra_args=["--auth-token", TOKEN], workdir=workdir)
    yield server
    server.stop()


def test_token_lets_the_client_in(token_server):
    # PySpark sends `authorization: Bearer TOKEN` over gRPC local credentials for localhost.
    spark = new_session(f"sc://localhost:{token_server.port}/;token={TOKEN}")
    try:
        assert spark.range(5).filter("id > 1").count() == 3
        spark.sql("CREATE TABLE authed (a INT) USING parquet")
        spark.sql("INSERT INTO authed VALUES (1)")
        assert [r.a for r in spark.table("authed").collect()] == [1]
    finally:
        spark.stop()


@pytest.mark.parametrize("suffix", ["", ";token=wrong"])
def test_missing_or_wrong_token_is_unauthenticated(token_server, suffix):
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException

    spark = None
    with pytest.raises(SparkConnectGrpcException) as raised:
        spark = new_session(f"sc://localhost:{token_server.port}/{suffix}")
        spark.range(1).collect()
    if spark is not None:
        spark.stop()
    assert raised.value.getGrpcStatusCode() == grpc.StatusCode.UNAUTHENTICATED


def test_every_rpc_refused_with_sparks_messages_and_no_work_done(token_server):
    channel, stub = grpc_stub(token_server.port)
    with channel:
        # Spark 4.3's answers: UNAUTHENTICATED, "No authentication token provided" without the
        # header, "Invalid authentication token" with any other value (case and prefix exact).
        cases = [
            (None, "No authentication token provided"),
            ([("authorization", "Bearer wrong")], "Invalid authentication token"),
            ([("authorization", TOKEN)], "Invalid authentication token"),
            ([("authorization", f"bearer {TOKEN}")], "Invalid authentication token"),
            ([("authorization", f"Bearer {TOKEN}x")], "Invalid authentication token"),
        ]
        session = str(uuid.uuid4())
        for metadata, message in cases:
            with pytest.raises(grpc.RpcError) as raised:
                stub.Config(config_request(), metadata=metadata)
            assert (raised.value.code(), raised.value.details()) == (grpc.StatusCode.UNAUTHENTICATED, message)
            # A command is refused before it runs: the database is never created.
            with pytest.raises(grpc.RpcError) as raised:
                list(stub.ExecutePlan(sql_command_request(session, "CREATE DATABASE intruder"), metadata=metadata))
            assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED
        ok = [("authorization", f"Bearer {TOKEN}")]
        assert stub.Config(config_request(), metadata=ok).pairs is not None
    spark = new_session(f"sc://localhost:{token_server.port}/;token={TOKEN}")
    try:
        assert "intruder" not in [r.namespace for r in spark.sql("SHOW DATABASES").collect()]
    finally:
        spark.stop()


@pytest.mark.parametrize("how", ["env", "conf"])
def test_token_from_environment_or_conf(request, ember_mode, tmp_path, how):
    ember_only()
    if ember_mode != "local":
        pytest.skip("the same flag handling in every mode")
    extra, env = [], {}
    if how == "env":
        env["SPARK_CONNECT_AUTHENTICATE_TOKEN"] = TOKEN
    else:
        extra = ["--conf", f"spark.connect.authenticate.token={TOKEN}"]
    server = EmberServer(ember_binary(request.config), ember_mode, extra_args=extra, workdir=tmp_path, env=env)
    try:
        channel, stub = grpc_stub(server.port)
        with channel:
            with pytest.raises(grpc.RpcError) as raised:
                stub.Config(config_request())
            assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED
        spark = new_session(f"sc://localhost:{server.port}/;token={TOKEN}")
        try:
            assert spark.range(3).count() == 3
            # The token is never a session's config value.
            assert spark.conf.get("spark.connect.authenticate.token", None) != TOKEN
        finally:
            spark.stop()
    finally:
        server.stop()


def test_open_port_without_token_warns(request, ember_mode, tmp_path):
    ember_only()
    if ember_mode != "local":
        pytest.skip("the same flag handling in every mode")
    server = EmberServer(ember_binary(request.config), ember_mode, extra_args=["--host", "0.0.0.0"], workdir=tmp_path)
    try:
        spark = new_session(server.url)
        assert spark.range(2).count() == 2
        spark.stop()
    finally:
        server.stop()
    log = server.log_path.read_text()
    assert "needs no authentication" in log and "--auth-token" in log, log
    local = EmberServer(ember_binary(request.config), ember_mode, workdir=tmp_path)
    local.stop()
    assert "needs no authentication" not in local.log_path.read_text()
