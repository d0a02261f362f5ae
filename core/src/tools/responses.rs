//! The `responses` backend: canned results matched on a subset of the arguments.

use super::CannedResponse;
use crate::end_state::same_json;
use serde_json::Value;

/// The result of the first response whose `when` holds for `args` (every named argument
/// present and equal), else the first response without `when`; `None` when neither
/// exists, which the server answers as a tool error.
pub fn canned_result<'a>(responses: &'a [CannedResponse], args: &Value) -> Option<&'a Value> {
    responses
        .iter()
        .find(|response| {
            response.when.as_ref().is_some_and(|when| {
                when.iter()
                    .all(|(key, want)| args.get(key).is_some_and(|got| same_json(got, want)))
            })
        })
        .or_else(|| responses.iter().find(|response| response.when.is_none()))
        .map(|response| &response.result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn response(when: Option<Value>, result: Value) -> CannedResponse {
        CannedResponse {
            when: when.map(|w| w.as_object().unwrap().clone()),
            result,
        }
    }

    #[test]
    fn the_first_match_wins_and_the_default_catches_the_rest() {
        let responses = [
            response(Some(json!({"order_id": "A1"})), json!({"days": 12})),
            response(None, json!({"error": "unknown order"})),
            response(Some(json!({"order_id": "A1", "x": 1})), json!("never")),
        ];
        let answer = |args: Value| canned_result(&responses, &args).cloned();
        assert_eq!(
            answer(json!({"order_id": "A1", "x": 2})),
            Some(json!({"days": 12}))
        );
        assert_eq!(
            answer(json!({"order_id": "B2"})),
            Some(json!({"error": "unknown order"}))
        );
        assert_eq!(answer(json!({})), Some(json!({"error": "unknown order"})));
        let no_default = [response(Some(json!({"n": 7})), json!("seven"))];
        assert_eq!(
            canned_result(&no_default, &json!({"n": 7.0})),
            Some(&json!("seven"))
        );
        assert_eq!(canned_result(&no_default, &json!({"n": 8})), None);
    }
}
