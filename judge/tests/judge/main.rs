//! Integration tests of proctor-judge. No test touches the network: HTTP behaviour runs
//! against wiremock on 127.0.0.1, judge logic against scripted clients and cassettes.

mod bundle;
mod cassette;
mod http_shape;
mod injection;
mod retries;
mod samples;
mod support;
