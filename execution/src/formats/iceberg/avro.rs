//! A small Avro object container writer for Iceberg's manifests and manifest lists: their
//! schemas carry Iceberg field ids (`field-id` attributes) and their file metadata the table's
//! schema and partition spec, which a generic Arrow-to-Avro writer does not give.

/// One Avro value of the records written.
#[derive(Debug, Clone)]
pub enum AvroValue {
    Null,
    Boolean(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    /// A `fixed` value (its bytes, as many as its type's size).
    Fixed(Vec<u8>),
    /// A union branch: its index in the union and its value.
    Union(usize, Box<AvroValue>),
    Record(Vec<AvroValue>),
}

fn zigzag(out: &mut Vec<u8>, v: i64) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    zigzag(out, b.len() as i64);
    out.extend_from_slice(b);
}

fn encode(out: &mut Vec<u8>, value: &AvroValue) {
    match value {
        AvroValue::Null => {}
        AvroValue::Boolean(v) => out.push(u8::from(*v)),
        AvroValue::Int(v) => zigzag(out, i64::from(*v)),
        AvroValue::Float(v) => out.extend_from_slice(&v.to_le_bytes()),
        AvroValue::Double(v) => out.extend_from_slice(&v.to_le_bytes()),
        AvroValue::Bytes(b) => bytes(out, b),
        AvroValue::Fixed(b) => out.extend_from_slice(b),
        AvroValue::Long(v) => zigzag(out, *v),
        AvroValue::String(s) => bytes(out, s.as_bytes()),
        AvroValue::Union(i, v) => {
            zigzag(out, *i as i64);
            encode(out, v);
        }
        AvroValue::Record(fields) => {
            for f in fields {
                encode(out, f);
            }
        }
    }
}

/// An Avro object container file (no compression) of `records` with `schema` (JSON) and
/// `metadata` (string values).
pub fn container(schema: &str, metadata: &[(&str, String)], records: &[AvroValue]) -> Vec<u8> {
    let mut out = b"Obj\x01".to_vec();
    let mut meta: Vec<(&str, Vec<u8>)> = vec![
        ("avro.schema", schema.as_bytes().to_vec()),
        ("avro.codec", b"null".to_vec()),
    ];
    for (k, v) in metadata {
        meta.push((k, v.as_bytes().to_vec()));
    }
    zigzag(&mut out, meta.len() as i64);
    for (k, v) in &meta {
        bytes(&mut out, k.as_bytes());
        bytes(&mut out, v);
    }
    zigzag(&mut out, 0);
    let sync: [u8; 16] = *uuid::Uuid::new_v4().as_bytes();
    out.extend_from_slice(&sync);
    if !records.is_empty() {
        let mut block = vec![];
        for r in records {
            encode(&mut block, r);
        }
        zigzag(&mut out, records.len() as i64);
        bytes(&mut out, &block);
        out.extend_from_slice(&sync);
    }
    out
}

/// The manifest entry schema (format version 2) whose partition record has `partition_fields`
/// (a JSON array of Avro fields with their field ids).
pub fn manifest_entry_schema(partition_fields: &str) -> String {
    MANIFEST_ENTRY_SCHEMA.replace("\"fields\": []", &format!("\"fields\": {partition_fields}"))
}

/// The manifest entry schema (format version 2) of a table without partition fields.
const MANIFEST_ENTRY_SCHEMA: &str = r#"{"type": "record", "name": "manifest_entry", "fields": [
    {"name": "status", "type": "int", "field-id": 0},
    {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
    {"name": "sequence_number", "type": ["null", "long"], "default": null, "field-id": 3},
    {"name": "file_sequence_number", "type": ["null", "long"], "default": null, "field-id": 4},
    {"name": "data_file", "type": {"type": "record", "name": "r2", "fields": [
        {"name": "content", "type": "int", "field-id": 134},
        {"name": "file_path", "type": "string", "field-id": 100},
        {"name": "file_format", "type": "string", "field-id": 101},
        {"name": "partition", "type": {"type": "record", "name": "r102", "fields": []}, "field-id": 102},
        {"name": "record_count", "type": "long", "field-id": 103},
        {"name": "file_size_in_bytes", "type": "long", "field-id": 104}
    ]}, "field-id": 2}
]}"#;

/// The manifest list schema (format version 2).
pub const MANIFEST_FILE_SCHEMA: &str = r#"{"type": "record", "name": "manifest_file", "fields": [
    {"name": "manifest_path", "type": "string", "field-id": 500},
    {"name": "manifest_length", "type": "long", "field-id": 501},
    {"name": "partition_spec_id", "type": "int", "field-id": 502},
    {"name": "content", "type": "int", "field-id": 517},
    {"name": "sequence_number", "type": "long", "field-id": 515},
    {"name": "min_sequence_number", "type": "long", "field-id": 516},
    {"name": "added_snapshot_id", "type": "long", "field-id": 503},
    {"name": "added_files_count", "type": "int", "field-id": 504},
    {"name": "existing_files_count", "type": "int", "field-id": 505},
    {"name": "deleted_files_count", "type": "int", "field-id": 506},
    {"name": "added_rows_count", "type": "long", "field-id": 512},
    {"name": "existing_rows_count", "type": "long", "field-id": 513},
    {"name": "deleted_rows_count", "type": "long", "field-id": 514}
]}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_varints() {
        let mut out = vec![];
        for v in [0, -1, 1, -64, 64] {
            zigzag(&mut out, v);
        }
        assert_eq!(out, vec![0, 1, 2, 127, 128, 1]);
    }

    #[test]
    fn a_container_reads_back() {
        let records = vec![AvroValue::Record(vec![
            AvroValue::String("p".into()),
            AvroValue::Long(7),
            AvroValue::Int(0),
            AvroValue::Int(1),
            AvroValue::Long(3),
            AvroValue::Long(3),
            AvroValue::Long(9),
            AvroValue::Int(1),
            AvroValue::Int(0),
            AvroValue::Int(0),
            AvroValue::Long(5),
            AvroValue::Long(0),
            AvroValue::Long(0),
        ])];
        let data = container(
            MANIFEST_FILE_SCHEMA,
            &[("format-version", "2".into())],
            &records,
        );
        let reader = arrow_avro::reader::ReaderBuilder::new()
            .build(std::io::BufReader::new(std::io::Cursor::new(data)))
            .unwrap();
        let batches: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
        assert_eq!(batches[0].num_rows(), 1);
        assert_eq!(batches[0].num_columns(), 13);
    }
}
