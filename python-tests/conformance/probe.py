"""Print what a Spark Connect server answers to the requests behind the TCK items Ember missed.

    python probe.py sc://127.0.0.1:15099      # real Spark (../shared/tools/spark-reference start)
    python probe.py sc://127.0.0.1:PORT       # an `ember server`

Run it with the conformance venv's python (it needs pyspark's generated protos, pyarrow and grpc).
Each probe builds its request directly in protobuf as the kit does and prints the raw answer (or
the gRPC status, details and ErrorInfo reason of the error), so two servers can be diffed line
by line. It asserts nothing: `scripts/conformance.sh` runs the kit itself.
"""

from __future__ import annotations

import sys
import uuid

import grpc
import pyarrow as pa
from pyspark.sql.connect.client.core import DefaultChannelBuilder
from pyspark.sql.connect.proto import base_pb2 as pb
from pyspark.sql.connect.proto import base_pb2_grpc
from pyspark.sql.connect.proto import expressions_pb2 as ex
from pyspark.sql.connect.proto import relations_pb2 as rel
from pyspark.sql.connect.proto import types_pb2

USER = pb.UserContext(user_id="ember-probe")


def error_text(err: grpc.RpcError) -> str:
    reason = ""
    try:
        from grpc_status import rpc_status
        from google.rpc import error_details_pb2

        status = rpc_status.from_call(err)
        for detail in status.details if status else []:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = f" ErrorInfo.reason={info.reason} errorClass={info.metadata.get('errorClass')}"
    except Exception:  # noqa: BLE001 - best effort
        pass
    return f"ERROR {err.code().name}: {' '.join(err.details().split())[:300]}{reason}"


class Probe:
    def __init__(self, url: str):
        self.stub = base_pb2_grpc.SparkConnectServiceStub(DefaultChannelBuilder(url).toChannel())

    def sid(self) -> str:
        return str(uuid.uuid4())

    def config(self, sid: str, op: pb.ConfigRequest.Operation):
        return self.stub.Config(pb.ConfigRequest(session_id=sid, user_context=USER, operation=op))

    def get_tz(self, sid: str):
        return self.config(
            sid, pb.ConfigRequest.Operation(get=pb.ConfigRequest.Get(keys=["spark.sql.session.timeZone"]))
        )

    def release(self, sid: str, allow_reconnect: bool = False):
        return self.stub.ReleaseSession(
            pb.ReleaseSessionRequest(session_id=sid, user_context=USER, allow_reconnect=allow_reconnect)
        )

    def execute(self, sid: str, relation: rel.Relation):
        req = pb.ExecutePlanRequest(
            session_id=sid, user_context=USER, operation_id=str(uuid.uuid4()), plan=pb.Plan(root=relation)
        )
        return list(self.stub.ExecutePlan(req))

    def rows(self, sid: str, relation: rel.Relation) -> str:
        try:
            responses = self.execute(sid, relation)
        except grpc.RpcError as err:
            return error_text(err)
        batches = []
        for r in responses:
            if r.HasField("arrow_batch"):
                with pa.ipc.open_stream(r.arrow_batch.data) as reader:
                    batches.extend(reader)
        metrics = [
            (m.name, m.plan_id, list(m.keys), [str(v).strip().replace("\n", " ") for v in m.values])
            for r in responses
            for m in r.observed_metrics
        ]
        if not batches:
            return f"0 rows{f' metrics={metrics}' if metrics else ''}"
        table = pa.Table.from_batches(batches)
        schema = ", ".join(f"{f.name}:{f.type}" for f in table.schema)
        return f"[{schema}] {table.to_pylist()}{f' metrics={metrics}' if metrics else ''}"


def attr(name):
    return ex.Expression(unresolved_attribute=ex.Expression.UnresolvedAttribute(unparsed_identifier=name))


def fn(name, *args):
    return ex.Expression(unresolved_function=ex.Expression.UnresolvedFunction(function_name=name, arguments=args))


def lit_long(v):
    return ex.Expression(literal=ex.Expression.Literal(long=v))


def alias(e, name):
    return ex.Expression(alias=ex.Expression.Alias(expr=e, name=[name]))


def local(table: pa.Table) -> rel.Relation:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return rel.Relation(local_relation=rel.LocalRelation(data=sink.getvalue().to_pybytes()))


def rng(end):
    return rel.Relation(range=rel.Range(start=0, end=end, step=1, num_partitions=1))


def sql(query):
    return rel.Relation(sql=rel.SQL(query=query))


def show(label, thunk):
    try:
        print(f"{label}: {thunk()}")
    except grpc.RpcError as err:
        print(f"{label}: {error_text(err)}")


def main(url: str) -> None:
    p = Probe(url)

    # TCK-WIRE-003: GetAll with a prefix.
    s = p.sid()
    p.config(s, pb.ConfigRequest.Operation(set=pb.ConfigRequest.Set(pairs=[pb.KeyValue(key="spark.sql.session.timeZone", value="UTC")])))
    show("WIRE-003 GetAll(prefix=spark.sql.session.)", lambda: [
        (kv.key, kv.value) for kv in p.config(s, pb.ConfigRequest.Operation(get_all=pb.ConfigRequest.GetAll(prefix="spark.sql.session."))).pairs
    ])

    # TCK-WIRE-005: GetStatus of an unknown session, then whether it exists.
    s = p.sid()
    show("WIRE-005 GetStatus(unknown session)", lambda: p.stub.GetStatus(pb.GetStatusRequest(
        session_id=s, user_context=USER, operation_status=pb.GetStatusRequest.OperationStatusRequest())))
    show("WIRE-005   then ReleaseSession", lambda: (lambda r: (r.session_id == s, r.server_side_session_id))(p.release(s)))

    # TCK-WIRE-007: ReleaseSession of a never-used session, then use it.
    for reconnect in (False, True):
        s = p.sid()
        show(f"WIRE-007 Release(unknown, allow_reconnect={reconnect})", lambda: (lambda r: (r.session_id == s, r.server_side_session_id))(p.release(s, reconnect)))
        show("WIRE-007   then Config.Get", lambda: [(kv.key, kv.value) for kv in p.get_tz(s).pairs])

    # TCK-WIRE-008: FetchErrorDetails of an unknown id on an unknown session.
    s = p.sid()
    show("WIRE-008 FetchErrorDetails(unknown id)", lambda: (lambda r: f"session_id={r.session_id!r} server_side_session_id={r.server_side_session_id!r} has_root={r.HasField('root_error_idx')} errors={len(r.errors)}")(
        p.stub.FetchErrorDetails(pb.FetchErrorDetailsRequest(session_id=s, user_context=USER, error_id=str(uuid.uuid4())))))
    show("WIRE-008   then ReleaseSession", lambda: (lambda r: (r.session_id == s, r.server_side_session_id))(p.release(s)))

    # TCK-WIRE-009: CloneSession of a missing source.
    s, t = p.sid(), p.sid()
    show("WIRE-009 CloneSession(missing source)", lambda: p.stub.CloneSession(pb.CloneSessionRequest(session_id=s, user_context=USER, new_session_id=t)))
    show("WIRE-009   then Release(source)", lambda: p.release(s).server_side_session_id)
    show("WIRE-009   then Release(target)", lambda: p.release(t).server_side_session_id)

    s = p.sid()
    # TCK-WIRE-018: ToSchema, Unpivot.
    table = pa.table({"category": ["a", "b"], "first": pa.array([1, 3], pa.int32()), "second": pa.array([2, 4], pa.int32())})
    schema = types_pb2.DataType()
    for name, kind in (("category", "string"), ("first", "long"), ("second", "long")):
        f = schema.struct.fields.add(name=name, nullable=True)
        getattr(f.data_type, kind).SetInParent()
    to_schema = rel.Relation(to_schema=rel.ToSchema(input=local(table), schema=schema))
    show("WIRE-018 ToSchema", lambda: p.rows(s, to_schema))
    unpivot = rel.Relation(unpivot=rel.Unpivot(input=local(table), ids=[attr("category")], values=rel.Unpivot.Values(values=[attr("first"), attr("second")]), variable_column_name="metric", value_column_name="amount"))
    show("WIRE-018 Unpivot(LocalRelation)", lambda: p.rows(s, unpivot))

    # TCK-WIRE-026: useLargeVarTypes=true.
    s2 = p.sid()
    p.config(s2, pb.ConfigRequest.Operation(set=pb.ConfigRequest.Set(pairs=[pb.KeyValue(key="spark.sql.execution.arrow.useLargeVarTypes", value="true")])))
    large = pa.table({"text": pa.array(["x"], pa.large_string()), "texts": pa.array([["y"]], pa.list_(pa.large_string())),
                      "m": pa.array([[("k", b"v")]], pa.map_(pa.large_string(), pa.large_binary())),
                      "r": pa.array([{"t": "z", "b": b"w"}], pa.struct([("t", pa.large_string()), ("b", pa.large_binary())]))})
    show("WIRE-026 LocalRelation(large types) with useLargeVarTypes=true", lambda: p.rows(s2, local(large)))
    show("WIRE-026 SQL 'x', X'01', array('y') with useLargeVarTypes=true", lambda: p.rows(s2, sql("SELECT 'x' AS s, X'01' AS b, array('y') AS a, map('k', X'02') AS m, named_struct('t', 'z') AS r")))

    # TCK-SQL-007 / TCK-EXPR-002: chained predicates.
    for q in ("1 = 1 = TRUE", "1 IS NULL IS NULL", "1 <=> 1 <=> TRUE", "1 == 1 == TRUE"):
        show(f"SQL-007 SELECT {q}", lambda q=q: p.rows(s, sql(f"SELECT {q} AS c")))
        e = ex.Expression(expression_string=ex.Expression.ExpressionString(expression=q))
        show(f"EXPR-002 ExpressionString {q}", lambda e=e: p.rows(s, rel.Relation(project=rel.Project(input=rng(1), expressions=[e]))))

    # TCK-WIRE-029: WithRelations (SQL root, SubqueryAlias reference without plan_id), CollectMetrics.
    numbers = rel.Relation(subquery_alias=rel.SubqueryAlias(alias="numbers", input=rng(3)))
    with_rel = rel.Relation(with_relations=rel.WithRelations(root=sql("SELECT id + 1 AS id FROM numbers"), references=[numbers]))
    show("WIRE-029 WithRelations", lambda: p.rows(s, with_rel))
    collected = rel.Relation(collect_metrics=rel.CollectMetrics(input=rng(4), name="m29", metrics=[alias(fn("sum", attr("id")), "total"), alias(fn("count", attr("id")), "count")]))
    collected.common.plan_id = 29
    show("WIRE-029 CollectMetrics", lambda: p.rows(s, collected))

    # TCK-WIRE-030: NearestByJoin.
    users = local(pa.table({"user_id": [1, 2, 3], "score": [10.0, 20.0, 30.0]}))
    products = local(pa.table({"product": ["A", "B", "C"], "pscore": [11.0, 22.0, 5.0]}))
    ranking = fn("abs", fn("-", attr("score"), attr("pscore")))
    nbj = rel.Relation(nearest_by_join=rel.NearestByJoin(left=users, right=products, ranking_expression=ranking, num_results=2, join_type="inner", mode="exact", direction="distance"))
    show("WIRE-030 NearestByJoin(exact, distance, k=2)", lambda: p.rows(s, nbj))

    # TCK-WIRE-031: AsOfJoin nearest, tolerance 2, exact matches excluded (Spark: strict tolerance).
    left = local(pa.table({"left_key": [10], "left_label": ["query"]}))
    right = local(pa.table({"right_key": [8, 10, 12], "right_label": ["prev", "exact", "next"]}))
    for exact in (False, True):
        j = rel.Relation(as_of_join=rel.AsOfJoin(left=left, right=right, left_as_of=attr("left_key"), right_as_of=attr("right_key"), join_type="leftouter", tolerance=lit_long(2), allow_exact_matches=exact, direction="nearest"))
        show(f"WIRE-031 AsOfJoin(nearest, tolerance=2, allow_exact_matches={exact})", lambda j=j: p.rows(s, j))
    for direction in ("backward", "forward"):
        j = rel.Relation(as_of_join=rel.AsOfJoin(left=left, right=right, left_as_of=attr("left_key"), right_as_of=attr("right_key"), join_type="leftouter", tolerance=lit_long(2), allow_exact_matches=False, direction=direction))
        show(f"WIRE-031 AsOfJoin({direction}, tolerance=2, allow_exact_matches=False)", lambda j=j: p.rows(s, j))

    # Reference gaps (Ember answers differently from Spark here).
    show("SQL-004 CAST('connect' AS VARCHAR)", lambda: p.rows(s, sql("SELECT CAST('connect' AS VARCHAR) AS v")))
    s3 = p.sid()
    p.config(s3, pb.ConfigRequest.Operation(set=pb.ConfigRequest.Set(pairs=[pb.KeyValue(key="spark.sql.timestampType", value="TIMESTAMP_NTZ")])))
    show("SQL-005 timestampType=TIMESTAMP_NTZ, CAST(... AS TIMESTAMP)", lambda: p.rows(s3, sql("SELECT CAST('2024-01-02 03:04:05' AS TIMESTAMP) AS t")))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sc://127.0.0.1:15099")
