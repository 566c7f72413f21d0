"""No hang, no crash (issue 25): malformed protobuf sent to every RPC, invalid UTF-8 in
literals, absurd sizes and deep plans get errors, and the server goes on answering. Runs in
every mode of ``--ember-modes`` (the shared server of the module).

Spark 4.3's answers, observed on a real Spark Connect server: `X'éa'` fails with
INVALID_TYPED_LITERAL; `repeat('x', 2147483647)`, `lpad`/`rpad` to 2147483647 and
`space(2147483647)` fail with gRPC UNKNOWN "Requested array size exceeds VM limit" (the JVM
refusing the allocation); `array_repeat(1, 2147483647)` fails with
COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER; `LIMIT 2147483647` is an ordinary limit; `sample(False, 2.0)` fails with "requirement failed:
Sampling fraction (2.0) must be on interval [0, 1] without replacement" (and
`sample(True, 1e9)` runs on, as any long query: a task timeout would end it). Chains of
500 `withColumn` calls work on Spark 4.3, 510 fail there with UNKNOWN "Application error
processing RPC" (its protobuf recursion limit of 1024), and 300 chained filters already fail
("Max iterations (100) reached for batch Resolution")."""

import sys
import uuid

import grpc
import pytest

from conftest import RECORD


@pytest.fixture(autouse=True)
def ember_only():
    if RECORD:
        pytest.skip("Ember's robustness (Spark's answers are in the module docstring)")


def raw_channel(server_url):
    return grpc.insecure_channel(server_url.removeprefix("sc://"))


UNARY = ["AnalyzePlan", "Config", "ArtifactStatus", "Interrupt", "ReleaseExecute", "ReleaseSession",
         "FetchErrorDetails", "CloneSession", "GetStatus"]
STREAMING = ["ExecutePlan", "ReattachExecute"]
GARBAGE = [
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
    b"\x0a\xff\xff\xff\xff\x0f",
    b"\x12\x05abc",
    b"\x0b" * 100_000,
    b"\x1a" + b"\x80" * 20,
    bytes(range(256)) * 4,
]


def test_malformed_protobuf_to_every_rpc_is_an_error(spark, server_url):
    identity = lambda b: b  # noqa: E731
    with raw_channel(server_url) as channel:
        for method in UNARY + STREAMING + ["AddArtifacts"]:
            path = f"/spark.connect.SparkConnectService/{method}"
            for garbage in GARBAGE:
                if method in STREAMING:
                    call = channel.unary_stream(path, request_serializer=identity, response_deserializer=identity)
                    run = lambda: list(call(garbage, timeout=30))  # noqa: E731
                elif method == "AddArtifacts":
                    call = channel.stream_unary(path, request_serializer=identity, response_deserializer=identity)
                    run = lambda: call(iter([garbage, garbage]), timeout=30)  # noqa: E731
                else:
                    call = channel.unary_unary(path, request_serializer=identity, response_deserializer=identity)
                    run = lambda: call(garbage, timeout=30)  # noqa: E731
                with pytest.raises(grpc.RpcError) as raised:
                    run()
                assert raised.value.code() != grpc.StatusCode.DEADLINE_EXCEEDED, (method, garbage[:8])
    assert spark.range(3).count() == 3


def test_invalid_utf8_in_a_string_literal_is_an_error(spark, server_url):
    import pyspark.sql.connect.proto as pb2

    literal = pb2.Expression(literal=pb2.Expression.Literal(string="QQQQQQ"))
    relation = pb2.Relation(project=pb2.Project(input=pb2.Relation(range=pb2.Range(end=1, step=1)), expressions=[literal]))
    request = pb2.ExecutePlanRequest(
        session_id=str(uuid.uuid4()),
        user_context=pb2.UserContext(user_id="u"),
        plan=pb2.Plan(root=relation),
    ).SerializeToString()
    bad = request.replace(b"QQQQQQ", b"\xff\xfe\xc3(Q\x80")
    with raw_channel(server_url) as channel:
        call = channel.unary_stream(
            "/spark.connect.SparkConnectService/ExecutePlan",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        with pytest.raises(grpc.RpcError) as raised:
            list(call(bad, timeout=30))
        assert "UTF-8" in raised.value.details()
    assert spark.range(2).count() == 2


def test_bad_hex_literal_is_sparks_error(spark):
    from pyspark.errors import ParseException

    with pytest.raises(ParseException) as raised:
        spark.sql("SELECT X'éa'").collect()
    assert raised.value.getCondition() == "INVALID_TYPED_LITERAL"


@pytest.mark.parametrize(
    "sql, function",
    [
        ("SELECT length(repeat('x', 2147483647))", "repeat"),
        ("SELECT length(repeat('abc', 1000000000))", "repeat"),
        ("SELECT length(lpad('a', 2147483647, 'b'))", "lpad"),
        ("SELECT length(rpad('a', 2147483647, 'b'))", "rpad"),
        ("SELECT length(space(2147483647))", "space"),
        ("SELECT size(array_repeat(1, 2147483647))", "array_repeat"),
        ("SELECT length(repeat(CAST(id AS STRING), 2147483647)) FROM range(3)", "repeat"),
    ],
)
def test_absurd_sizes_are_errors_not_allocations(spark, sql, function):
    with pytest.raises(Exception) as raised:
        spark.sql(sql).collect()
    # (Arrays beyond Ember's limit are Spark's COLLECTION_SIZE_LIMIT_EXCEEDED, naming it.)
    if function.startswith("array"):
        assert "COLLECTION_SIZE_LIMIT_EXCEEDED" in str(raised.value)
        assert f"`{function}`" in str(raised.value) and "268435456" in str(raised.value)
    else:
        assert f"{function} would make a value of more than" in str(raised.value)
    # Sizes under the limit are values as before.
    assert spark.sql("SELECT length(repeat('ab', 3)), length(lpad('a', 5, 'b')), size(array_repeat(1, 4))").first() == (6, 5, 4)


@pytest.mark.parametrize("fraction", [2.0, -0.5])
def test_sample_fractions_out_of_range_are_sparks_error(spark, fraction):
    from pyspark.errors.exceptions.connect import IllegalArgumentException

    with pytest.raises(IllegalArgumentException) as raised:
        spark.range(10).sample(False, fraction).count()
    assert str(raised.value).startswith(
        f"requirement failed: Sampling fraction ({fraction}) must be on interval [0, 1] without replacement"
    )


def test_huge_limits_are_ordinary(spark):
    assert [r.id for r in spark.sql("SELECT id FROM range(3) LIMIT 2147483647").collect()] == [0, 1, 2]
    assert spark.range(4).limit(2**31 - 1).count() == 4


def test_a_thousand_chained_operations_work(spark):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    df = spark.range(10)
    for i in range(1000):
        df = df.withColumn(f"c{i % 5}", df.id + i)
    assert df.orderBy("id").collect()[-1] == (9, 9 + 995, 9 + 996, 9 + 997, 9 + 998, 9 + 999)
    df = spark.range(10)
    for i in range(1000):
        df = df.filter(df.id >= -i)
    assert df.count() == 10


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(message, name, payload):
    """`payload` (bytes of a message) as field `name` of `message`, in protobuf's wire format."""
    number = message.DESCRIPTOR.fields_by_name[name].number
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_plans_deeper_than_the_limit_are_refused(spark, server_url):
    import pyspark.sql.connect.proto as pb2

    # 2,500 filters nest 5,000 messages, more than the 4,096 Ember decodes. (Written by hand:
    # Python's protobuf refuses to build messages this deep.)
    relation = pb2.Relation(range=pb2.Range(end=3, step=1)).SerializeToString()
    condition = pb2.Expression(literal=pb2.Expression.Literal(boolean=True)).SerializeToString()
    for _ in range(2500):
        filter_ = _field(pb2.Filter, "input", relation) + _field(pb2.Filter, "condition", condition)
        relation = _field(pb2.Relation, "filter", filter_)
    head = pb2.ExecutePlanRequest(session_id=str(uuid.uuid4()), user_context=pb2.UserContext(user_id="u"))
    request = head.SerializeToString() + _field(pb2.ExecutePlanRequest, "plan", _field(pb2.Plan, "root", relation))
    with raw_channel(server_url) as channel:
        call = channel.unary_stream(
            "/spark.connect.SparkConnectService/ExecutePlan",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        with pytest.raises(grpc.RpcError) as raised:
            list(call(request, timeout=60))
        assert "recursion limit reached" in raised.value.details()
    assert spark.range(2).count() == 2
