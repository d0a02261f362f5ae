//! How much one OTLP request may hold, checked on its bytes before anything is decoded:
//! decoding makes a structure per span, attribute and value, much larger than their
//! bytes on the wire (an empty span is two bytes of protobuf or three of JSON), so the
//! number of them is bounded, not only the body's size. Memory per request stays a small
//! multiple of [`MAX_BODY_BYTES`].

use super::decode::{Encoding, Signal};

/// The largest request body read (exporters batch at most a few MiB). Compressed bodies
/// are refused, so this bounds the decoded size too.
pub const MAX_BODY_BYTES: usize = 8 << 20;

/// Spans and log records one request may hold.
pub const MAX_ITEMS_PER_REQUEST: usize = 10_000;
/// Elements (messages, strings and byte fields in protobuf; objects in JSON) one request may
/// hold, at any depth.
pub const MAX_ELEMENTS_PER_REQUEST: usize = 200_000;
/// JSON values (objects, arrays, members and elements) one request may hold.
pub const MAX_JSON_VALUES: usize = 500_000;
/// How deep messages or JSON values may nest.
const MAX_DEPTH: u32 = 64;

/// `Err(reason)` when the body holds more than the limits allow.
pub fn check(signal: Signal, encoding: Encoding, body: &[u8]) -> Result<(), String> {
    let mut counts = Counts::default();
    match encoding {
        Encoding::Json => json(body, &mut counts)?,
        Encoding::Protobuf => {
            let top = match signal {
                Signal::Traces => Kind::TraceRequest,
                Signal::Logs => Kind::LogRequest,
            };
            // A body that is not protobuf stops the walk; the decoder says why.
            let _ = walk(body, top, 0, &mut counts);
            counts.over()?;
        }
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Counts {
    items: usize,
    elements: usize,
    values: usize,
}

impl Counts {
    fn over(&self) -> Result<(), String> {
        if self.items > MAX_ITEMS_PER_REQUEST {
            return Err(format!(
                "trace: request holds over {MAX_ITEMS_PER_REQUEST} spans or log records, the limit per request; export smaller batches"
            ));
        }
        if self.elements > MAX_ELEMENTS_PER_REQUEST {
            return Err(format!(
                "trace: request holds over {MAX_ELEMENTS_PER_REQUEST} elements (spans, attributes, values), the limit per request; export smaller batches"
            ));
        }
        if self.values > MAX_JSON_VALUES {
            return Err(format!(
                "trace: request holds over {MAX_JSON_VALUES} JSON values, the limit per request; export smaller batches"
            ));
        }
        Ok(())
    }
}

/// How many values a JSON text holds (`{`, `[` and `,` outside strings: about one per
/// value), counted without parsing; `Err` when it nests deeper than allowed.
pub fn json_values(body: &[u8]) -> Result<usize, String> {
    scan_json(body).map(|counts| counts.values)
}

fn json(body: &[u8], counts: &mut Counts) -> Result<(), String> {
    *counts = scan_json(body).map_err(|reason| format!("trace: request {reason}"))?;
    counts.over()
}

fn scan_json(body: &[u8]) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let (mut in_string, mut escaped, mut depth) = (false, false, 0u32);
    for &byte in body {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                counts.values += 1;
                counts.elements += usize::from(byte == b'{');
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("nests deeper than {MAX_DEPTH} levels"));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => counts.values += 1,
            _ => {}
        }
    }
    Ok(counts)
}

/// The OTLP messages whose fields are messages in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    TraceRequest,
    LogRequest,
    ResourceSpans,
    ResourceLogs,
    Resource,
    ScopeSpans,
    ScopeLogs,
    Scope,
    Span,
    Event,
    Link,
    LogRecord,
    KeyValue,
    AnyValue,
    ArrayValue,
    KeyValueList,
    /// A string, bytes, or a message of no interest: counted, not entered.
    Leaf,
}

impl Kind {
    /// The kind of field `field` of this message, when it is length-delimited.
    fn child(self, field: u64) -> Kind {
        use Kind::*;
        match (self, field) {
            (TraceRequest, 1) => ResourceSpans,
            (LogRequest, 1) => ResourceLogs,
            (ResourceSpans | ResourceLogs, 1) => Resource,
            (ResourceSpans, 2) => ScopeSpans,
            (ResourceLogs, 2) => ScopeLogs,
            (Resource, 1) | (Scope, 3) | (Span, 9) | (Event, 3) | (Link, 4) => KeyValue,
            (LogRecord, 6) | (KeyValueList, 1) => KeyValue,
            (ScopeSpans | ScopeLogs, 1) => Scope,
            (ScopeSpans, 2) => Span,
            (ScopeLogs, 2) => LogRecord,
            (Span, 11) => Event,
            (Span, 13) => Link,
            (LogRecord, 5) | (KeyValue, 2) | (ArrayValue, 1) => AnyValue,
            (AnyValue, 5) => ArrayValue,
            (AnyValue, 6) => KeyValueList,
            _ => Leaf,
        }
    }
}

/// Walks protobuf wire format, counting length-delimited fields; `Err(())` on bytes that are
/// not protobuf, or once a count is over its limit.
fn walk(buf: &[u8], kind: Kind, depth: u32, counts: &mut Counts) -> Result<(), ()> {
    if depth > MAX_DEPTH {
        return Err(());
    }
    let mut at = 0usize;
    while at < buf.len() {
        let key = varint(buf, &mut at)?;
        match key & 7 {
            0 => {
                varint(buf, &mut at)?;
            }
            1 => at = at.checked_add(8).ok_or(())?,
            5 => at = at.checked_add(4).ok_or(())?,
            2 => {
                let len = usize::try_from(varint(buf, &mut at)?).map_err(|_| ())?;
                let end = at
                    .checked_add(len)
                    .filter(|end| *end <= buf.len())
                    .ok_or(())?;
                counts.elements += 1;
                let child = kind.child(key >> 3);
                if matches!(child, Kind::Span | Kind::LogRecord) {
                    counts.items += 1;
                }
                if counts.elements > MAX_ELEMENTS_PER_REQUEST
                    || counts.items > MAX_ITEMS_PER_REQUEST
                {
                    return Err(());
                }
                if child != Kind::Leaf {
                    walk(&buf[at..end], child, depth + 1, counts)?;
                }
                at = end;
            }
            _ => return Err(()),
        }
    }
    if at > buf.len() { Err(()) } else { Ok(()) }
}

fn varint(buf: &[u8], at: &mut usize) -> Result<u64, ()> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*at).ok_or(())?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_empty_spans_are_refused_before_decoding() {
        let mut json = br#"{"resourceSpans":[{"scopeSpans":[{"spans":["#.to_vec();
        for i in 0..MAX_ELEMENTS_PER_REQUEST {
            if i > 0 {
                json.push(b',');
            }
            json.extend_from_slice(b"{}");
        }
        json.extend_from_slice(b"]}]}]}");
        let reason = check(Signal::Traces, Encoding::Json, &json).unwrap_err();
        assert!(reason.contains("elements"), "{reason}");
        // Protobuf: ResourceSpans { ScopeSpans { Span {} x N } }.
        let spans: Vec<u8> = [0x12, 0x00].repeat(MAX_ITEMS_PER_REQUEST + 1);
        let mut scope = vec![0x12];
        push_len(&mut scope, spans.len());
        scope.extend_from_slice(&spans);
        let mut resource = vec![0x0a];
        push_len(&mut resource, scope.len());
        resource.extend_from_slice(&scope);
        let reason = check(Signal::Traces, Encoding::Protobuf, &resource).unwrap_err();
        assert!(reason.contains("spans or log records"), "{reason}");
        let small = br#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"a,{["}]}]}]}"#;
        assert_eq!(check(Signal::Traces, Encoding::Json, small), Ok(()));
    }

    fn push_len(out: &mut Vec<u8>, mut len: usize) {
        loop {
            let byte = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
}
