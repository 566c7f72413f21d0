//! Spark's DDL and DML statements whose grammar sqlparser does not follow (`CREATE TABLE ...
//! USING ... PARTITIONED BY ... OPTIONS ...`, `CREATE DATABASE ... WITH DBPROPERTIES`, `INSERT
//! ... PARTITION`, `DESCRIBE ... EXTENDED`, `SHOW TBLPROPERTIES`, ...), parsed with sqlparser's
//! tokens and primitives; queries inside them go through sqlparser's query parser.

use sqlparser::ast;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{Lowering, expression, object_name_parts, query};
use crate::error::{ErrorKind, PlanError, PlanResult, unsupported};
use crate::spec::{
    AlterTable, Bucketing, CreateTableSpec, ExplainMode, Expr, PartitionTransform, Statement,
};

type Parsed<T> = Result<T, ParserError>;

/// Whether the next token is the (unquoted) word `w`; consumes it if so.
fn word(p: &mut Parser, w: &str) -> bool {
    match &p.peek_token_ref().token {
        Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w) => {
            p.next_token();
            true
        }
        _ => false,
    }
}

/// Whether the next tokens are the words `ws`; consumes them only if all match.
fn words(p: &mut Parser, ws: &[&str]) -> bool {
    let matches = ws.iter().enumerate().all(|(i, w)| {
        matches!(&p.peek_nth_token_ref(i).token,
            Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    });
    if matches {
        for _ in ws {
            p.next_token();
        }
    }
    matches
}

fn name(p: &mut Parser) -> PlanResult<Vec<String>> {
    let n = p.parse_object_name(false).map_err(PlanError::from_parser)?;
    object_name_parts(&n)
}

/// A string literal (or, for property keys, a dotted name).
fn string(p: &mut Parser) -> Parsed<String> {
    p.parse_literal_string()
}

/// `(key [=] value, ...)` of OPTIONS, TBLPROPERTIES and DBPROPERTIES; keys may be dotted
/// names or strings, values strings, numbers or booleans.
fn properties(p: &mut Parser) -> Parsed<Vec<(String, String)>> {
    p.expect_token(&Token::LParen)?;
    let pairs = p.parse_comma_separated(|p| {
        let key = property_key(p)?;
        let _ = p.consume_token(&Token::Eq);
        let value = match p.next_token().token {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s,
            Token::Number(n, _) => n,
            Token::Word(w) => w.value,
            other => return p.expected("a property value", TokenWithSpan::wrap(other)),
        };
        Ok((key, value))
    })?;
    p.expect_token(&Token::RParen)?;
    Ok(pairs)
}

fn property_key(p: &mut Parser) -> Parsed<String> {
    match p.next_token().token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
        Token::Word(w) => {
            let mut key = w.value;
            while p.consume_token(&Token::Period) {
                match p.next_token().token {
                    Token::Word(w) => {
                        key.push('.');
                        key.push_str(&w.value);
                    }
                    other => return p.expected("a property key", TokenWithSpan::wrap(other)),
                }
            }
            Ok(key)
        }
        other => p.expected("a property key", TokenWithSpan::wrap(other)),
    }
}

/// Property keys alone: `(key, ...)`.
fn property_keys(p: &mut Parser) -> Parsed<Vec<String>> {
    p.expect_token(&Token::LParen)?;
    let keys = p.parse_comma_separated(property_key)?;
    p.expect_token(&Token::RParen)?;
    Ok(keys)
}

/// The text of a parenthesized list (`(a INT, b ARRAY<STRING>)`), without the parentheses,
/// for the DDL type parser.
fn parenthesized_text(p: &mut Parser) -> Parsed<String> {
    p.expect_token(&Token::LParen)?;
    let mut depth = 1;
    let mut parts = vec![];
    loop {
        let t = p.next_token().token;
        match &t {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Ok(parts.join(" "));
                }
            }
            Token::EOF => return p.expected(")", TokenWithSpan::wrap(t)),
            _ => {}
        }
        parts.push(match t {
            // Strings are re-quoted for the type parser, which reads backslash escapes.
            Token::SingleQuotedString(s) => {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
            other => other.to_string(),
        });
    }
}

/// `SORTED BY (a, b DESC)`: the columns (Spark keeps only their names).
fn sort_identifiers(p: &mut Parser) -> PlanResult<Vec<String>> {
    p.expect_token(&Token::LParen)
        .map_err(PlanError::from_parser)?;
    let mut names = vec![];
    loop {
        names.push(p.parse_identifier().map_err(PlanError::from_parser)?.value);
        if !word(p, "ASC") && word(p, "DESC") {
            return Err(PlanError::Unsupported("SORTED BY ... DESC".into()));
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    p.expect_token(&Token::RParen)
        .map_err(PlanError::from_parser)?;
    Ok(names)
}

/// `PARTITIONED BY (a, bucket(4, b))`: the partition columns and a `bucket` transform;
/// Spark's session catalog refuses the other transforms (`years(ts)`, ...).
/// `PARTITIONED BY (a, bucket(4, b), days(ts))`: the columns, the bucketing, and every item in
/// order (other transforms are for Iceberg tables; the session catalog refuses them later).
fn partition_items(p: &mut Parser) -> PlanResult<PartitionItems> {
    let err = PlanError::from_parser;
    p.expect_token(&Token::LParen).map_err(err)?;
    let mut items = PartitionItems::default();
    loop {
        let name = p.parse_identifier().map_err(err)?.value;
        if p.consume_token(&Token::LParen) {
            let mut args = vec![];
            loop {
                let arg = match &p.peek_token_ref().token {
                    Token::Number(n, _) => n.clone(),
                    _ => p.parse_identifier().map_err(err)?.value,
                };
                if matches!(&p.peek_token_ref().token, Token::Number(..)) {
                    p.next_token();
                }
                args.push(arg);
                if !p.consume_token(&Token::Comma) {
                    break;
                }
            }
            p.expect_token(&Token::RParen).map_err(err)?;
            let name = name.to_ascii_lowercase();
            if name == "bucket" && items.bucketing.is_none() {
                let Some((n, cols)) = args.split_first() else {
                    return Err(PlanError::InvalidPlan("bucket() without arguments".into()));
                };
                let n: i64 = n
                    .parse()
                    .map_err(|_| PlanError::InvalidPlan(format!("bucket({n}, ...)")))?;
                items.bucketing = Some(Bucketing {
                    num_buckets: crate::proto::bucket_count(n, ErrorKind::Parse)?,
                    columns: cols.to_vec(),
                    sort_columns: vec![],
                });
            }
            items.transforms.push(PartitionTransform { name, args });
        } else {
            items.transforms.push(PartitionTransform::identity(&name));
            items.columns.push(name);
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    p.expect_token(&Token::RParen).map_err(err)?;
    Ok(items)
}

#[derive(Default)]
struct PartitionItems {
    columns: Vec<String>,
    bucketing: Option<Bucketing>,
    transforms: Vec<PartitionTransform>,
}

fn identifiers(p: &mut Parser) -> Parsed<Vec<String>> {
    p.expect_token(&Token::LParen)?;
    let names = p.parse_comma_separated(|p| p.parse_identifier().map(|i| i.value))?;
    p.expect_token(&Token::RParen)?;
    Ok(names)
}

impl PlanError {
    fn from_parser(e: ParserError) -> PlanError {
        let msg = match e {
            ParserError::TokenizerError(m) | ParserError::ParserError(m) => m,
            ParserError::RecursionLimitExceeded => {
                return crate::error::SparkError::too_complex_to_parse().into();
            }
        };
        let near = msg
            .split("found: ")
            .nth(1)
            .map(|rest| rest.split(" at Line").next().unwrap_or(rest).trim())
            .unwrap_or("end of input");
        crate::error::SparkError::parse_syntax(&format!("'{near}'"), "").into()
    }
}

/// The statements handled here, or `None` to leave the text to sqlparser's statement parser.
pub(crate) fn parse(l: &Lowering, p: &mut Parser) -> PlanResult<Option<Statement>> {
    let stmt = if words(p, &["CREATE"]) {
        create(l, p)?
    } else if words(p, &["DROP"]) {
        drop(p)?
    } else if words(p, &["INSERT"]) {
        Some(insert(l, p)?)
    } else if words(p, &["TRUNCATE", "TABLE"]) {
        let name = name(p)?;
        if word(p, "PARTITION") {
            return unsupported("TRUNCATE TABLE ... PARTITION");
        }
        Some(Statement::TruncateTable { name })
    } else if words(p, &["ALTER", "TABLE"]) {
        Some(alter_table(p)?)
    } else if words(p, &["SHOW", "CREATE", "TABLE"]) {
        let name = name(p)?;
        if words(p, &["AS", "SERDE"]) {
            return unsupported("SHOW CREATE TABLE ... AS SERDE");
        }
        Some(Statement::ShowCreateTable { name })
    } else if words(p, &["SHOW", "TBLPROPERTIES"]) {
        let name = name(p)?;
        let key = if p.peek_token_ref().token == Token::LParen {
            let mut keys = property_keys(p).map_err(PlanError::from_parser)?;
            keys.pop()
        } else {
            None
        };
        Some(Statement::ShowTblProperties { name, key })
    } else if let Some(scope) = ["USER", "SYSTEM", "ALL"]
        .into_iter()
        .find(|scope| words(p, &["SHOW", scope, "FUNCTIONS"]))
    {
        word(p, "LIKE");
        let pattern = match p.peek_token_ref().token {
            Token::EOF | Token::SemiColon => None,
            _ => Some(string(p).map_err(PlanError::from_parser)?),
        };
        Some(Statement::ShowFunctions {
            pattern,
            user_only: scope == "USER",
        })
    } else if words(p, &["SHOW", "PARTITIONS"]) {
        let name = name(p)?;
        if word(p, "PARTITION") {
            return unsupported("SHOW PARTITIONS ... PARTITION");
        }
        Some(Statement::ShowPartitions { name })
    } else if words(p, &["CACHE"]) {
        let lazy = word(p, "LAZY");
        if !word(p, "TABLE") {
            return Err(PlanError::from_parser(ParserError::ParserError(format!(
                "Expected: TABLE, found: {}",
                p.peek_token().token
            ))));
        }
        let table = name(p)?;
        if word(p, "OPTIONS") {
            properties(p).map_err(PlanError::from_parser)?;
        }
        let plan = if p.parse_keyword(Keyword::AS) || starts_query(p) {
            let q = p.parse_query().map_err(PlanError::from_parser)?;
            Some(query::lower_query(l, *q)?)
        } else {
            None
        };
        Some(Statement::Cache { table, plan, lazy })
    } else if words(p, &["UNCACHE", "TABLE"]) {
        let if_exists = words(p, &["IF", "EXISTS"]);
        Some(Statement::Uncache {
            table: name(p)?,
            if_exists,
        })
    } else if words(p, &["REFRESH", "TABLE"]) {
        Some(Statement::RefreshTable { table: name(p)? })
    } else if words(p, &["SHOW", "NAMESPACES"])
        || words(p, &["SHOW", "SCHEMAS"])
        || words(p, &["SHOW", "DATABASES"])
    {
        if word(p, "FROM") || word(p, "IN") {
            name(p)?;
        }
        word(p, "LIKE");
        let pattern = match p.peek_token_ref().token {
            Token::EOF | Token::SemiColon => None,
            _ => Some(string(p).map_err(PlanError::from_parser)?),
        };
        Some(Statement::ShowDatabases { pattern })
    } else if words(p, &["EXPLAIN"]) {
        let mode = if word(p, "EXTENDED") {
            ExplainMode::Extended
        } else if word(p, "FORMATTED") {
            ExplainMode::Formatted
        } else if word(p, "CODEGEN") {
            ExplainMode::Codegen
        } else if word(p, "COST") {
            ExplainMode::Cost
        } else if word(p, "ANALYZE") {
            ExplainMode::Analyze
        } else {
            ExplainMode::Simple
        };
        if !starts_query(p) {
            return unsupported("EXPLAIN of a command");
        }
        let q = p.parse_query().map_err(PlanError::from_parser)?;
        Some(Statement::Explain {
            plan: query::lower_query(l, *q)?,
            mode,
        })
    } else if words(p, &["DESCRIBE"]) || words(p, &["DESC"]) {
        describe(l, p)?
    } else {
        None
    };
    Ok(stmt)
}

/// `CREATE [OR REPLACE] TEMPORARY VIEW name [(columns)] USING format [OPTIONS (...)]`: a view
/// reading a data source (files, or a registered Python data source); `path` is the files'.
/// A view over a query is sqlparser's (`None`: the statement is parsed afresh).
fn temporary_view_using(p: &mut Parser, replace: bool) -> PlanResult<Option<Statement>> {
    let perr = PlanError::from_parser;
    let if_not_exists = words(p, &["IF", "NOT", "EXISTS"]);
    let view = name(p)?;
    let schema = if p.peek_token_ref().token == Token::LParen {
        Some(parenthesized_text(p).map_err(perr)?)
    } else {
        None
    };
    if !word(p, "USING") {
        return Ok(None);
    }
    let format = p
        .parse_identifier()
        .map_err(perr)?
        .value
        .to_ascii_lowercase();
    let mut options = std::collections::HashMap::new();
    if word(p, "OPTIONS") {
        options.extend(properties(p).map_err(perr)?);
    }
    let path = options
        .keys()
        .find(|k| k.eq_ignore_ascii_case("path"))
        .cloned();
    let paths = path.and_then(|k| options.remove(&k)).into_iter().collect();
    let source = crate::spec::DataSource {
        format: Some(format),
        schema,
        options,
        paths,
    };
    Ok(Some(Statement::CreateView {
        name: view,
        plan: crate::spec::Plan::new(crate::spec::PlanNode::DataSource(source)),
        kind: crate::spec::ViewKind::Temporary,
        replace,
        if_not_exists,
        columns: vec![],
    }))
}

fn create(l: &Lowering, p: &mut Parser) -> PlanResult<Option<Statement>> {
    let replace = words(p, &["OR", "REPLACE"]);
    if word(p, "DATABASE") || word(p, "SCHEMA") || word(p, "NAMESPACE") {
        if replace {
            return Err(PlanError::from_parser(ParserError::ParserError(
                "Expected: TABLE, found: DATABASE".into(),
            )));
        }
        return Ok(Some(create_database(p)?));
    }
    if words(p, &["TEMPORARY", "VIEW"]) || words(p, &["TEMP", "VIEW"]) {
        return temporary_view_using(p, replace);
    }
    let external = word(p, "EXTERNAL");
    if !word(p, "TABLE") {
        // Views, functions, ...: sqlparser's or not supported.
        return Ok(None);
    }
    let mut spec = CreateTableSpec {
        replace,
        external,
        if_not_exists: words(p, &["IF", "NOT", "EXISTS"]),
        name: name(p)?,
        ..Default::default()
    };
    if word(p, "LIKE") {
        return unsupported("CREATE TABLE ... LIKE");
    }
    if p.peek_token_ref().token == Token::LParen {
        spec.columns = Some(parenthesized_text(p).map_err(PlanError::from_parser)?);
    }
    let perr = PlanError::from_parser;
    loop {
        if word(p, "USING") {
            spec.format = Some(
                p.parse_identifier()
                    .map_err(perr)?
                    .value
                    .to_ascii_lowercase(),
            );
        } else if words(p, &["PARTITIONED", "BY"]) {
            let typed = matches!(
                [
                    &p.peek_nth_token_ref(0).token,
                    &p.peek_nth_token_ref(1).token,
                    &p.peek_nth_token_ref(2).token
                ],
                [Token::LParen, Token::Word(_), Token::Word(_)]
            );
            if typed {
                return unsupported(
                    "PARTITIONED BY with column types (Hive tables); name the columns of the table's column list",
                );
            }
            let items = partition_items(p)?;
            spec.partition_by = items.columns;
            if items.bucketing.is_some() {
                spec.bucketing = items.bucketing;
            }
            spec.transforms = items.transforms;
        } else if word(p, "LOCATION") {
            spec.location = Some(string(p).map_err(perr)?);
        } else if word(p, "OPTIONS") {
            spec.options = properties(p).map_err(perr)?;
        } else if word(p, "COMMENT") {
            spec.comment = Some(string(p).map_err(perr)?);
        } else if word(p, "TBLPROPERTIES") {
            spec.properties = properties(p).map_err(perr)?;
        } else if words(p, &["CLUSTERED", "BY"]) {
            let columns = identifiers(p).map_err(perr)?;
            let sort_columns = match words(p, &["SORTED", "BY"]) {
                true => sort_identifiers(p)?,
                false => vec![],
            };
            if !word(p, "INTO") {
                return Err(PlanError::from_parser(ParserError::ParserError(format!(
                    "found: {}",
                    p.peek_token_ref().token
                ))));
            }
            let n = p.parse_literal_uint().map_err(perr)?;
            if !word(p, "BUCKETS") {
                return Err(PlanError::from_parser(ParserError::ParserError(format!(
                    "found: {}",
                    p.peek_token_ref().token
                ))));
            }
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            spec.bucketing = Some(Bucketing {
                num_buckets: crate::proto::bucket_count(n, ErrorKind::Parse)?,
                columns,
                sort_columns,
            });
        } else if words(p, &["CLUSTER", "BY"]) {
            return unsupported("clustered tables (CLUSTER BY)");
        } else if word(p, "STORED") || words(p, &["ROW", "FORMAT"]) {
            return unsupported("Hive tables (STORED AS / ROW FORMAT); use USING parquet|csv|json");
        } else {
            break;
        }
    }
    if p.parse_keyword(Keyword::AS)
        || matches!(&p.peek_token_ref().token, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::FROM))
    {
        let q = p.parse_query().map_err(perr)?;
        spec.query = Some(query::lower_query(l, *q)?);
    }
    Ok(Some(Statement::CreateTable(Box::new(spec))))
}

fn create_database(p: &mut Parser) -> PlanResult<Statement> {
    let perr = PlanError::from_parser;
    let if_not_exists = words(p, &["IF", "NOT", "EXISTS"]);
    let name = database_name(p)?;
    let mut comment = None;
    let mut location = None;
    let mut properties_ = vec![];
    loop {
        if word(p, "COMMENT") {
            comment = Some(string(p).map_err(perr)?);
        } else if word(p, "LOCATION") {
            location = Some(string(p).map_err(perr)?);
        } else if words(p, &["WITH", "DBPROPERTIES"]) || words(p, &["WITH", "PROPERTIES"]) {
            properties_ = properties(p).map_err(perr)?;
        } else {
            break;
        }
    }
    Ok(Statement::CreateDatabase {
        name,
        if_not_exists,
        comment,
        location,
        properties: properties_,
    })
}

/// A database name, optionally qualified by the session catalog.
fn database_name(p: &mut Parser) -> PlanResult<String> {
    let parts = name(p)?;
    match parts.as_slice() {
        [db] => Ok(db.clone()),
        [c, db] if c.eq_ignore_ascii_case(crate::catalog::SESSION_CATALOG) => Ok(db.clone()),
        _ => Err(crate::error::SparkError::analysis(
            "REQUIRES_SINGLE_PART_NAMESPACE",
            "42K05",
            format!(
                "spark_catalog requires a single-part namespace, but got {}.",
                parts
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(".")
            ),
        )
        .into()),
    }
}

fn drop(p: &mut Parser) -> PlanResult<Option<Statement>> {
    if word(p, "DATABASE") || word(p, "SCHEMA") || word(p, "NAMESPACE") {
        let if_exists = words(p, &["IF", "EXISTS"]);
        let name = database_name(p)?;
        let cascade = word(p, "CASCADE");
        if !cascade {
            word(p, "RESTRICT");
        }
        return Ok(Some(Statement::DropDatabase {
            name,
            if_exists,
            cascade,
        }));
    }
    if word(p, "TABLE") {
        let if_exists = words(p, &["IF", "EXISTS"]);
        let name = name(p)?;
        word(p, "PURGE");
        return Ok(Some(Statement::DropTable { name, if_exists }));
    }
    Ok(None)
}

fn insert(l: &Lowering, p: &mut Parser) -> PlanResult<Statement> {
    let perr = PlanError::from_parser;
    let overwrite = if word(p, "OVERWRITE") {
        true
    } else {
        word(p, "INTO").then_some(false).ok_or_else(|| {
            perr(ParserError::ParserError(format!(
                "Expected: INTO or OVERWRITE, found: {}",
                p.peek_token().token
            )))
        })?
    };
    if word(p, "DIRECTORY") || words(p, &["LOCAL", "DIRECTORY"]) {
        return unsupported("INSERT OVERWRITE DIRECTORY");
    }
    word(p, "TABLE");
    let table = name(p)?;
    let mut partition: Vec<(String, Option<Expr>)> = vec![];
    if word(p, "PARTITION") {
        p.expect_token(&Token::LParen).map_err(perr)?;
        loop {
            let column = p.parse_identifier().map_err(perr)?.value;
            let value = if p.consume_token(&Token::Eq) {
                let e: ast::Expr = p.parse_expr().map_err(perr)?;
                Some(expression::lower(l, e)?)
            } else {
                None
            };
            partition.push((column, value));
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
        p.expect_token(&Token::RParen).map_err(perr)?;
        words(p, &["IF", "NOT", "EXISTS"]);
    }
    // `(a, b)` names the columns, unless it starts the query.
    let mut columns = vec![];
    if p.peek_token_ref().token == Token::LParen
        && !matches!(&p.peek_nth_token_ref(1).token, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::FROM))
    {
        columns = identifiers(p).map_err(perr)?;
    }
    if words(p, &["BY", "NAME"]) {
        return unsupported("INSERT ... BY NAME");
    }
    if word(p, "REPLACE") {
        return unsupported("INSERT ... REPLACE WHERE");
    }
    let q = p.parse_query().map_err(perr)?;
    let query = query::lower_query(l, *q)?;
    Ok(Statement::Insert {
        table,
        query,
        overwrite,
        partition,
        columns,
    })
}

fn alter_table(p: &mut Parser) -> PlanResult<Statement> {
    let perr = PlanError::from_parser;
    let name = name(p)?;
    let action = if words(p, &["RENAME", "TO"]) {
        AlterTable::RenameTo(self::name(p)?)
    } else if words(p, &["ADD", "COLUMNS"]) || words(p, &["ADD", "COLUMN"]) {
        if p.peek_token_ref().token == Token::LParen {
            AlterTable::AddColumns(parenthesized_text(p).map_err(perr)?)
        } else {
            // One column without parentheses: the rest of the statement.
            let mut parts = vec![];
            while p.peek_token_ref().token != Token::EOF
                && p.peek_token_ref().token != Token::SemiColon
            {
                parts.push(p.next_token().token.to_string());
            }
            AlterTable::AddColumns(parts.join(" "))
        }
    } else if words(p, &["SET", "TBLPROPERTIES"]) {
        AlterTable::SetProperties(properties(p).map_err(perr)?)
    } else if words(p, &["UNSET", "TBLPROPERTIES"]) {
        let if_exists = words(p, &["IF", "EXISTS"]);
        AlterTable::UnsetProperties {
            keys: property_keys(p).map_err(perr)?,
            if_exists,
        }
    } else {
        let rest = p.peek_token().token.to_string();
        return unsupported(format!("ALTER TABLE ... {rest}"));
    };
    Ok(Statement::AlterTable { name, action })
}

fn describe(l: &Lowering, p: &mut Parser) -> PlanResult<Option<Statement>> {
    if word(p, "DATABASE") || word(p, "SCHEMA") || word(p, "NAMESPACE") {
        let extended = word(p, "EXTENDED");
        return Ok(Some(Statement::DescribeDatabase {
            name: database_name(p)?,
            extended,
        }));
    }
    if word(p, "FUNCTION") {
        let extended = word(p, "EXTENDED");
        let name = match p.next_token().token {
            Token::Word(w) => w.value,
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s,
            other => other.to_string(),
        };
        return Ok(Some(Statement::DescribeFunction { name, extended }));
    }
    if word(p, "QUERY") {
        let q = p.parse_query().map_err(PlanError::from_parser)?;
        return Ok(Some(Statement::DescribeQuery(query::lower_query(l, *q)?)));
    }
    if matches!(&p.peek_token_ref().token, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::FROM))
    {
        let q = p.parse_query().map_err(PlanError::from_parser)?;
        return Ok(Some(Statement::DescribeQuery(query::lower_query(l, *q)?)));
    }
    let history = matches!(&p.peek_token_ref().token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("HISTORY"))
        && !matches!(p.peek_nth_token(1).token, Token::EOF | Token::SemiColon);
    if history {
        p.next_token();
        let table = name(p)?;
        let limit = if word(p, "LIMIT") {
            let n = p.parse_literal_uint().map_err(PlanError::from_parser)?;
            Some(usize::try_from(n).unwrap_or(usize::MAX))
        } else {
            None
        };
        return Ok(Some(Statement::DescribeHistory { table, limit }));
    }
    word(p, "TABLE");
    let extended = word(p, "EXTENDED") || word(p, "FORMATTED");
    let table = name(p)?;
    if word(p, "PARTITION") {
        return unsupported("DESCRIBE TABLE ... PARTITION");
    }
    let column = match p.peek_token_ref().token {
        Token::EOF | Token::SemiColon => None,
        _ => Some(name(p)?),
    };
    Ok(Some(Statement::DescribeTable {
        table,
        extended,
        column,
    }))
}

/// Whether a query starts here (SELECT, WITH, VALUES, FROM, TABLE or a parenthesis).
fn starts_query(p: &Parser) -> bool {
    match &p.peek_token_ref().token {
        Token::Word(w) => matches!(
            w.keyword,
            Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::FROM | Keyword::TABLE
        ),
        Token::LParen => true,
        _ => false,
    }
}
