//! Token authentication on the Spark Connect port, as Spark 4 does it.
//!
//! With a token configured (`ember server --auth-token TOKEN`, the environment variable
//! `SPARK_CONNECT_AUTHENTICATE_TOKEN`, or `--conf spark.connect.authenticate.token=TOKEN`),
//! every RPC must carry the gRPC metadata `authorization: Bearer TOKEN`, which PySpark sends
//! for `sc://localhost:15002/;token=TOKEN`. The check runs in a tonic interceptor, before the
//! request's message is decoded, so a refused call does no work. Answers are Spark's
//! (`PreSharedKeyAuthenticationInterceptor`): `UNAUTHENTICATED` with "No authentication token
//! provided" or "Invalid authentication token". The comparison takes the same time whatever
//! bytes the client sent (for a given length).

use std::sync::Arc;

use subtle::ConstantTimeEq;
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// The configuration key of the token, as in Spark.
pub const TOKEN_CONF: &str = "spark.connect.authenticate.token";
/// The environment variable the server (and PySpark) read the token from.
pub const TOKEN_ENV: &str = "SPARK_CONNECT_AUTHENTICATE_TOKEN";

/// The interceptor: lets a call through only with the expected bearer token (any call when
/// no token is configured).
#[derive(Clone)]
pub struct TokenAuth {
    /// `Bearer TOKEN`, the whole expected `authorization` value.
    expected: Option<Arc<[u8]>>,
}

impl TokenAuth {
    pub fn new(token: Option<&str>) -> Self {
        Self {
            expected: token.map(|t| format!("Bearer {t}").into_bytes().into()),
        }
    }

    pub fn enabled(&self) -> bool {
        self.expected.is_some()
    }

    /// Whether metadata value `given` authenticates the caller.
    fn check(&self, given: Option<&[u8]>) -> Result<(), Status> {
        let Some(expected) = &self.expected else {
            return Ok(());
        };
        let Some(given) = given else {
            return Err(Status::unauthenticated("No authentication token provided"));
        };
        if bool::from(given.ct_eq(expected)) {
            Ok(())
        } else {
            Err(Status::unauthenticated("Invalid authentication token"))
        }
    }
}

impl TokenAuth {
    /// Whether an HTTP request (the job UI and `/metrics`, `--ui-port`) authenticates: its
    /// `Authorization: Bearer TOKEN` header, or a `token=TOKEN` query parameter (what the
    /// page's address carries and its API calls repeat). Constant-time, as for gRPC.
    pub fn check_http(&self, authorization: Option<&str>, query_token: Option<&str>) -> bool {
        let Some(expected) = &self.expected else {
            return true;
        };
        let header = authorization.is_some_and(|h| bool::from(h.as_bytes().ct_eq(expected)));
        let query = query_token.is_some_and(|t| {
            let given = format!("Bearer {}", percent_decode(t));
            bool::from(given.as_bytes().ct_eq(expected))
        });
        header | query
    }
}

/// `%XX` escapes and `+` of a URL query value decoded (invalid escapes are kept as written).
fn percent_decode(text: &str) -> String {
    let spaced = text.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

impl Interceptor for TokenAuth {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let given = request
            .metadata()
            .get("authorization")
            .map(|v| v.as_bytes());
        self.check(given)?;
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn http_requests_need_the_token_in_a_header_or_the_query() {
        let auth = TokenAuth::new(Some("s3 cret/+"));
        assert!(auth.check_http(Some("Bearer s3 cret/+"), None));
        assert!(auth.check_http(None, Some("s3%20cret%2F%2B")));
        assert!(auth.check_http(None, Some("s3+cret/%2b")));
        assert!(!auth.check_http(None, None));
        assert!(!auth.check_http(Some("Bearer s3 cret"), Some("nope")));
        assert!(!auth.check_http(Some("s3 cret/+"), Some("%")));
        assert!(TokenAuth::new(None).check_http(None, None));
    }

    fn call(auth: &TokenAuth, header: Option<&str>) -> Result<(), Status> {
        let mut request = Request::new(());
        if let Some(h) = header {
            let value = h.parse().map_err(|_| Status::internal("bad test header"))?;
            request.metadata_mut().insert("authorization", value);
        }
        auth.clone().call(request).map(|_| ())
    }

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let auth = TokenAuth::new(Some("s3cret"));
        assert!(auth.enabled());
        assert!(call(&auth, Some("Bearer s3cret")).is_ok());
        for wrong in [
            "Bearer s3cre",
            "Bearer s3cret ",
            "bearer s3cret",
            "s3cret",
            "Bearer ",
        ] {
            let refused = call(&auth, Some(wrong))
                .err()
                .map(|s| (s.code(), s.message().to_string()));
            assert_eq!(
                refused,
                Some((
                    Code::Unauthenticated,
                    "Invalid authentication token".to_string()
                )),
                "{wrong}"
            );
        }
        let missing = call(&auth, None)
            .err()
            .map(|s| (s.code(), s.message().to_string()));
        assert_eq!(
            missing,
            Some((
                Code::Unauthenticated,
                "No authentication token provided".to_string()
            ))
        );
    }

    #[test]
    fn without_a_token_every_call_passes() {
        let auth = TokenAuth::new(None);
        assert!(!auth.enabled());
        assert!(call(&auth, None).is_ok());
        assert!(call(&auth, Some("Bearer anything")).is_ok());
    }
}
