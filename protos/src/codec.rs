//! The gRPC codec of the generated services and clients: prost's, except that a decode error's
//! message is cut to its start and end. prost names every field on the way to the fault
//! ("Relation.rel_type: Filter.input: Relation.rel_type: ..."), so a plan nested thousands of
//! levels deep made a message of tens of kilobytes, which gRPC clients drop ("metadata size
//! exceeds hard limit") instead of showing the reason at its end.

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};

/// Longest decode error message kept whole.
const MAX_MESSAGE: usize = 1024;

/// prost's codec with short decode errors (see the module docs).
#[derive(Debug, Clone)]
pub struct ProstCodec<T, U>(tonic_prost::ProstCodec<T, U>);

impl<T, U> Default for ProstCodec<T, U> {
    fn default() -> Self {
        Self(tonic_prost::ProstCodec::default())
    }
}

impl<T, U> Codec for ProstCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = tonic_prost::ProstEncoder<T>;
    type Decoder = ShortErrors<U>;

    fn encoder(&mut self) -> Self::Encoder {
        self.0.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        ShortErrors(self.0.decoder())
    }
}

/// prost's decoder, its errors shortened.
#[derive(Debug, Clone)]
pub struct ShortErrors<U>(tonic_prost::ProstDecoder<U>);

impl<U: Message + Default> Decoder for ShortErrors<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(shorten)
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}

fn shorten(status: Status) -> Status {
    let message = status.message();
    if message.len() <= MAX_MESSAGE {
        return status;
    }
    let cut = |at: usize| (at..message.len()).find(|i| message.is_char_boundary(*i));
    let head_end = cut(MAX_MESSAGE / 4).unwrap_or(message.len());
    let tail_start = cut(message.len() - MAX_MESSAGE / 2).unwrap_or(message.len());
    Status::new(
        status.code(),
        format!(
            "{} ... {}",
            &message[..head_end],
            &message[tail_start.max(head_end)..]
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_keep_their_start_and_end() {
        let long = format!(
            "failed to decode: {}recursion limit reached",
            "Relation.input: ".repeat(4000)
        );
        let short = shorten(Status::internal(long));
        assert!(short.message().len() < 1100);
        assert!(
            short
                .message()
                .starts_with("failed to decode: Relation.input")
        );
        assert!(short.message().ends_with("recursion limit reached"));
        assert_eq!(short.code(), tonic::Code::Internal);
        assert_eq!(shorten(Status::internal("short")).message(), "short");
    }
}
