//! Compiles the vendored Spark Connect protos and Ember's own protos with tonic-prost-build.
//! protoc comes from the `protoc-bin-vendored` crate unless `PROTOC` is already set.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = match std::env::var_os("PROTOC") {
        Some(p) => PathBuf::from(p),
        None => protoc_bin_vendored::protoc_bin_path()?,
    };
    let root = PathBuf::from("proto");
    let mut files = Vec::new();
    for dir in ["spark/connect", "ember"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "proto"))
            .collect();
        entries.sort();
        files.extend(entries);
    }
    println!("cargo:rerun-if-changed=proto");
    let mut config = prost_build::Config::new();
    config.protoc_executable(protoc);
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        // prost's codec with short decode errors (src/codec.rs).
        .codec_path("crate::codec::ProstCodec")
        .compile_with_config(config, &files, &[root])?;
    Ok(())
}
