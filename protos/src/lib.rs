//! Generated protocol code: Spark Connect (vendored from Apache Spark, see `NOTICE`) and
//! Ember's own driver/worker protocol, and the gRPC codec the generated services use
//! (`codec`: prost's, with short decode errors). Nothing else lives here.

#![allow(clippy::all, clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(missing_docs)]

pub mod codec;

/// Spark Connect, `package spark.connect`.
pub mod spark {
    pub mod connect {
        tonic::include_proto!("spark.connect");
    }
}

/// Ember's own protocols.
pub mod ember {
    pub mod worker {
        tonic::include_proto!("ember.worker");
    }
}
