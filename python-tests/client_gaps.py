"""What an older PySpark client cannot express: tests skipped with a client older than the version
named, and why (conftest marks them skipped; the README's client section lists the same gaps).

Keys are `<module>.py::<test>` (every case of the test) or `<module>.py::<test>[<case>]` (one
case, its id without the execution mode). Only the client lacks these: the server answers each of
them when a client sends it.
"""

# key -> (first PySpark version that can express it, why an older one cannot)
CLIENT_GAPS = {
    # PySpark 3.5
    "test_sql_basics.py::test_sql_over_dataframe_arguments": ("4.0", "spark.sql(query, **kwargs) with DataFrame arguments is new in PySpark 4.0"),
    "test_sql_basics.py::test_positional_parameters_bind_in_text_order": ("4.0", "spark.sql(query, **kwargs) with DataFrame arguments is new in PySpark 4.0"),
    "test_clients.py::test_sql_parameters_as_columns": ("4.0", "spark.sql(query, args) with Column values is new in PySpark 4.0"),
    "test_dataframe_basics.py::test_schema_and_tree_string": ("4.0", "StructType.treeString is new in PySpark 4.0"),
    "test_protocol.py::test_large_results_stream_in_many_batches": ("4.0", "DataFrame.toArrow is new in PySpark 4.0"),
    "test_protocol.py::test_empty_result_keeps_schema": ("4.0", "DataFrame.toArrow is new in PySpark 4.0"),
    "test_protocol.py::test_ml_cache_cleanup_answered_as_spark": ("4.1", "MlCommand.clean_cache (the ML cache cleanup) is new in PySpark 4.1"),
    "test_sessions.py::test_config_operations": ("4.0", "RuntimeConf.getAll is new in PySpark 4.0"),
    "test_errors.py::test_error_details_are_fetched": ("4.0", "PySpark 3.5 neither fetches error details (FetchErrorDetails) nor has getCondition"),
    "test_catalog.py::test_catalog_create_table": ("4.0", "PySpark 3.5's catalog.createTable returns a DataFrame that creates the table again when collected"),
    "test_dataframe_relations.py::test_as_of_join": ("4.0", "DataFrame._joinAsOf is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_as_of_join_semantics": ("4.0", "DataFrame._joinAsOf is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_as_of_join_of_timestamps": ("4.0", "DataFrame._joinAsOf is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_as_of_join_arguments": ("4.0", "DataFrame._joinAsOf is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_lateral_join": ("4.0", "DataFrame.lateralJoin and Column.outer are new in PySpark 4.0"),
    "test_dataframe_relations.py::test_local_checkpoint": ("4.0", "DataFrame.localCheckpoint is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_checkpoint_keeps_rows_in_the_session": ("4.0", "DataFrame.checkpoint is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_observe": ("4.0", "DataFrame.observe with an Observation is new in PySpark 4.0's Spark Connect client"),
    "test_dataframe_relations.py::test_transpose": ("4.0", "DataFrame.transpose is new in PySpark 4.0"),
    "test_dataframe_relations.py::test_to_schema": ("4.0", "PySpark 3.5 parses a DDL schema string only with a JVM (_parse_datatype_string)"),
    "test_dataframe_relations.py::test_to_schema_errors": ("4.0", "PySpark 3.5 parses a DDL schema string only with a JVM (_parse_datatype_string)"),
    "test_dataframe_relations.py::test_to_schema_case_sensitive": ("4.0", "PySpark 3.5 parses a DDL schema string only with a JVM (_parse_datatype_string)"),
    "test_functions_aggregate.py::test_dataframe_aggregates[listagg_distinct]": ("4.0", "functions.listagg_distinct is new in PySpark 4.0"),
    "test_functions_datetime.py::test_dataframe[timestamp_add]": ("4.0", "functions.timestamp_add is new in PySpark 4.0"),
    "test_functions_datetime.py::test_dataframe[timestamp_diff]": ("4.0", "functions.timestamp_diff is new in PySpark 4.0"),
    # PySpark 4.0 and 4.1
    "test_dataframe_relations.py::test_nearest_by_join": ("4.2", "DataFrame.nearestByJoin is new in PySpark 4.2"),
    "test_dataframe_relations.py::test_nearest_by_join_errors": ("4.2", "DataFrame.nearestByJoin is new in PySpark 4.2"),
    "test_dataframe_relations.py::test_nearest_by_join_negated_similarity": ("4.2", "DataFrame.nearestByJoin is new in PySpark 4.2"),
}



def _version(text):
    return tuple(int(p) for p in text.split(".")[:2])


def skip_reason(module, test, case, client):
    """Why `module::test[case]` cannot run with PySpark `client`, or None."""
    for key in (f"{module}::{test}[{case}]", f"{module}::{test}"):
        gap = CLIENT_GAPS.get(key)
        if gap and _version(client) < _version(gap[0]):
            return f"PySpark {client}: {gap[1]}"
    return None
