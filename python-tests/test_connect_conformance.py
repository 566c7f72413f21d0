"""Spark Connect wire behaviour a client sees directly, as Spark 4.3 answers it: config
operations, session handles (GetStatus, CloneSession, ReleaseSession, FetchErrorDetails) and
relations built as protobuf. The draft Spark Connect specification's kit checks these
(`scripts/conformance.sh` runs the kit itself); each answer here is recorded from Spark."""

import uuid

import grpc
import pytest
from pyspark.sql.connect.proto import base_pb2 as pb

USER = pb.UserContext(user_id="ember-conformance")


@pytest.fixture(scope="module")
def stub(spark):
    return spark.client._stub


def error_class(err: grpc.RpcError):
    """The Spark error class of a failed call (from its ErrorInfo), or None."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    status = rpc_status.from_call(err)
    for detail in status.details if status else []:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.metadata.get("errorClass")
    return None


def config(stub, sid, **op):
    return stub.Config(pb.ConfigRequest(session_id=sid, user_context=USER, operation=pb.ConfigRequest.Operation(**op)))


def outcome(fn):
    """What a call answered: 'ok' or its error class."""
    try:
        fn()
        return "ok"
    except grpc.RpcError as e:
        return error_class(e) or e.code().name


def test_get_all_strips_the_prefix(stub, expected):
    sid = str(uuid.uuid4())
    config(stub, sid, set=pb.ConfigRequest.Set(pairs=[pb.KeyValue(key="spark.sql.session.timeZone", value="UTC")]))
    got = config(stub, sid, get_all=pb.ConfigRequest.GetAll(prefix="spark.sql.session."))
    expected.check_value(sorted([p.key, p.value] for p in got.pairs), name="pairs")


def test_silent_set_skips_what_spark_refuses(stub, expected):
    sid = str(uuid.uuid4())
    pairs = [
        pb.KeyValue(key="spark.sql.warehouse.dir", value="/tmp/elsewhere"),
        pb.KeyValue(key="spark.executor.memory", value="3g"),
        pb.KeyValue(key="spark.app.name", value="etl"),
        pb.KeyValue(key="spark.sql.shuffle.partitions", value="7"),
    ]
    got = config(stub, sid, set=pb.ConfigRequest.Set(pairs=pairs, silent=True))
    expected.check_value(list(got.warnings), name="warnings")
    values = config(stub, sid, get=pb.ConfigRequest.Get(keys=["spark.app.name", "spark.sql.shuffle.partitions"]))
    expected.check_value([[p.key, p.value] for p in values.pairs], name="values")
    # The same set, not silent, fails at the first key Spark refuses.
    expected.check_value(outcome(lambda: config(stub, sid, set=pb.ConfigRequest.Set(pairs=pairs))), name="loud")


def test_get_status_of_an_unknown_session_creates_nothing(stub, expected):
    sid = str(uuid.uuid4())
    expected.check_value(
        outcome(lambda: stub.GetStatus(pb.GetStatusRequest(session_id=sid, user_context=USER, operation_status=pb.GetStatusRequest.OperationStatusRequest()))),
        name="status",
    )
    released = stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER))
    expected.check_value(released.server_side_session_id, name="nothing_to_release")


def test_release_of_an_unused_session_leaves_it_usable(stub, expected):
    sid = str(uuid.uuid4())
    released = stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER, allow_reconnect=False))
    expected.check_value(released.server_side_session_id, name="release")
    expected.check_value(outcome(lambda: config(stub, sid, get=pb.ConfigRequest.Get(keys=["spark.sql.ansi.enabled"]))), name="later_use")
    # A session that existed stays closed after its release.
    stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER, allow_reconnect=False))
    expected.check_value(outcome(lambda: config(stub, sid, get=pb.ConfigRequest.Get(keys=["spark.sql.ansi.enabled"]))), name="after_close")


def test_fetch_unknown_error_details_is_empty(stub, expected):
    sid = str(uuid.uuid4())
    got = stub.FetchErrorDetails(pb.FetchErrorDetailsRequest(session_id=sid, user_context=USER, error_id=str(uuid.uuid4())))
    expected.check_value([got.session_id, got.server_side_session_id, got.HasField("root_error_idx"), len(got.errors)], name="response")
    released = stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER))
    expected.check_value(len(released.server_side_session_id) > 0, name="session_was_created")


def test_clone_of_a_missing_session_creates_neither(stub, expected):
    source, target = str(uuid.uuid4()), str(uuid.uuid4())
    expected.check_value(
        outcome(lambda: stub.CloneSession(pb.CloneSessionRequest(session_id=source, new_session_id=target, user_context=USER))),
        name="clone",
    )
    for name, sid in (("source", source), ("target", target)):
        released = stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER))
        expected.check_value(released.server_side_session_id, name=name)


def test_sql_with_named_references(stub, expected):
    # WithRelations whose root is SQL and whose references are SubqueryAliases without plan
    # ids: the query reads each reference under its alias.
    import pyarrow as pa
    from pyspark.sql.connect.proto import relations_pb2 as rel

    sid = str(uuid.uuid4())
    numbers = rel.Relation(subquery_alias=rel.SubqueryAlias(alias="numbers", input=rel.Relation(range=rel.Range(start=0, end=3, step=1))))
    root = rel.Relation(sql=rel.SQL(query="SELECT id + 1 AS id FROM numbers ORDER BY id"))
    plan = pb.Plan(root=rel.Relation(with_relations=rel.WithRelations(root=root, references=[numbers])))
    responses = stub.ExecutePlan(pb.ExecutePlanRequest(session_id=sid, user_context=USER, operation_id=str(uuid.uuid4()), plan=plan))
    rows = []
    for r in responses:
        if r.HasField("arrow_batch"):
            rows += pa.ipc.open_stream(r.arrow_batch.data).read_all().to_pylist()
    expected.check_value(rows, name="rows")
    stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER))


def arrow_kinds(t):
    """An Arrow type's kinds at every depth (without child names and nullability)."""
    import pyarrow as pa

    if pa.types.is_map(t):
        return ["map", arrow_kinds(t.key_type), arrow_kinds(t.item_type)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [str(t).split("<")[0], arrow_kinds(t.value_type)]
    if pa.types.is_struct(t):
        return ["struct", [[f.name, arrow_kinds(f.type)] for f in t]]
    return str(t)


def execute(stub, sid, relation):
    """The Arrow types and rows a relation's ExecutePlan answers, as they arrive."""
    import pyarrow as pa

    request = pb.ExecutePlanRequest(session_id=sid, user_context=USER, operation_id=str(uuid.uuid4()), plan=pb.Plan(root=relation))
    tables = [pa.ipc.open_stream(r.arrow_batch.data).read_all() for r in stub.ExecutePlan(request) if r.HasField("arrow_batch")]
    kinds = [[f.name, arrow_kinds(f.type)] for f in tables[0].schema]
    return kinds, [row for t in tables for row in t.to_pylist()]


def test_large_var_types(stub, expected):
    # spark.sql.execution.arrow.useLargeVarTypes: strings and binaries are sent as Arrow's
    # large types, top level and nested (PySpark's toArrow() normalises them, so the wire is
    # read directly).
    import pyarrow as pa
    from pyspark.sql.connect.proto import relations_pb2 as rel

    sid = str(uuid.uuid4())
    query = rel.Relation(
        sql=rel.SQL(
            query="SELECT 'x' AS s, X'01' AS b, array('y') AS a, map('k', X'02') AS m, named_struct('t', 'z', 'n', 1) AS st, CAST(NULL AS STRING) AS ns"
        )
    )
    table = pa.table(
        {
            "s": pa.array(["a", None], pa.large_string()),
            "b": pa.array([b"\x01", b""], pa.large_binary()),
            "l": pa.array([["p", None], []], pa.list_(pa.large_string())),
        }
    )
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    local = rel.Relation(local_relation=rel.LocalRelation(data=sink.getvalue().to_pybytes()))
    expected.check_value(execute(stub, sid, query), name="default")
    config(stub, sid, set=pb.ConfigRequest.Set(pairs=[pb.KeyValue(key="spark.sql.execution.arrow.useLargeVarTypes", value="true")]))
    expected.check_value(execute(stub, sid, query), name="large_sql")
    expected.check_value(execute(stub, sid, local), name="large_local")
    stub.ReleaseSession(pb.ReleaseSessionRequest(session_id=sid, user_context=USER))
