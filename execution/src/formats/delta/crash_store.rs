//! A crash point inside deltalake's commit, for the test of Delta's crash guarantee: with
//! `EMBER_FAILPOINT=delta-commit-before-log`, local Delta tables are opened on this wrapper of
//! the local file system, which aborts the process when a commit puts its log entry
//! (`_delta_log/<version>.json`), after the commit's data files were written. The table must
//! then read at its previous version. Without that setting tables never see this store.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};

/// The crash point's name.
pub const POINT: &str = "delta-commit-before-log";

/// Whether the crash point is armed (the process's `EMBER_FAILPOINT`).
pub fn armed() -> bool {
    std::env::var("EMBER_FAILPOINT").is_ok_and(|v| v == POINT)
}

#[derive(Debug)]
pub struct CrashBeforeLog(pub Arc<dyn ObjectStore>);

impl fmt::Display for CrashBeforeLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CrashBeforeLog({})", self.0)
    }
}

impl CrashBeforeLog {
    fn check(location: &Path) {
        let text = location.as_ref();
        if text.contains("_delta_log/") && text.ends_with(".json") {
            crate::failpoint::crash_point(POINT);
        }
    }
}

#[async_trait]
impl ObjectStore for CrashBeforeLog {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        Self::check(location);
        self.0.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        Self::check(location);
        self.0.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.0.get_opts(location, options).await
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        self.0.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.0.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.0.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        self.0.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.0.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        Self::check(to);
        self.0.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        Self::check(to);
        self.0.rename_opts(from, to, options).await
    }
}
