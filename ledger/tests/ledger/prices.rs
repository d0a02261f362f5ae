//! Price tables: effective dating, matching names, overrides, and bad files.

use crate::common::{dec, root, test_prices, ts};
use proctor_ledger::prices::{PriceTable, Unpriced, load_price_file};

#[test]
fn the_row_in_force_changes_inside_a_week() {
    let table = test_prices();
    // 2026-W50 runs Monday 2026-12-07 to Sunday 2026-12-13; the cut is on Wednesday.
    let before = table
        .find(
            Some("anthropic"),
            "claude-sonnet-4-6",
            ts("2026-12-08T23:59:59Z"),
        )
        .unwrap();
    let after = table
        .find(
            Some("anthropic"),
            "claude-sonnet-4-6",
            ts("2026-12-09T00:00:00Z"),
        )
        .unwrap();
    assert_eq!(before.id, "anthropic/claude-sonnet-4-6@2026-02-17");
    assert_eq!(after.id, "anthropic/claude-sonnet-4-6@2026-12-09");
    assert_eq!(
        (before.prices.input, after.prices.input),
        (dec("3"), dec("2.4"))
    );
}

#[test]
fn calls_before_the_first_row_and_unknown_models_are_unpriced() {
    let table = test_prices();
    assert_eq!(
        table.find(
            Some("anthropic"),
            "claude-sonnet-4-6",
            ts("2025-01-01T00:00:00Z")
        ),
        Err(Unpriced::NotYetInForce {
            first: "anthropic/claude-sonnet-4-6@2026-02-17".into()
        })
    );
    let unknown = table
        .find(
            Some("anthropic"),
            "claude-haiku-5-preview",
            ts("2026-12-15T00:00:00Z"),
        )
        .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "no price for model `claude-haiku-5-preview` of provider `anthropic`"
    );
    // Another provider's model of the same name is another price.
    assert!(
        table
            .find(Some("openrouter"), "gpt-5-mini", ts("2026-12-15T00:00:00Z"))
            .is_err()
    );
}

#[test]
fn snapshots_prefixes_and_provider_aliases_match() {
    let table = PriceTable::builtin();
    let at = ts("2026-11-23T00:00:00Z");
    let id =
        |provider: Option<&str>, model: &str| table.find(provider, model, at).map(|r| r.id.clone());
    assert_eq!(
        id(Some("anthropic"), "claude-sonnet-4-5-20250929").unwrap(),
        "anthropic/claude-sonnet-4-5@2025-09-29"
    );
    assert_eq!(
        id(None, "gpt-4o-2024-08-06").unwrap(),
        "openai/gpt-4o@2024-10-02"
    );
    assert_eq!(
        id(Some("gcp.gemini"), "models/gemini-2.5-pro").unwrap(),
        "google/gemini-2.5-pro@2025-06-17"
    );
    assert_eq!(id(None, "o3").unwrap(), "openai/o3@2025-06-10");
    // Capitals and padding in either name: the lowercase candidates are tried in order.
    assert_eq!(
        id(Some(" Anthropic "), "Claude-Sonnet-4-5-20250929").unwrap(),
        "anthropic/claude-sonnet-4-5@2025-09-29"
    );
    assert_eq!(id(None, " gpt-4o ").unwrap(), "openai/gpt-4o@2024-10-02");
    assert_eq!(
        table
            .find(None, "o3", ts("2025-05-01T00:00:00Z"))
            .unwrap()
            .prices
            .input,
        dec("10"),
        "before the 2025-06-10 cut"
    );
}

/// The table read from a price file named `name` holding `text`.
fn price_file(name: &str, text: &str) -> PriceTable {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    load_price_file(&file).unwrap()
}

#[test]
fn a_price_file_replaces_a_models_whole_history_and_adds_models() {
    let mut table = PriceTable::builtin();
    table.override_with(price_file(
        "mine.toml",
        "[[price]]\nprovider = \"openai\"\nmodel = \"o3\"\neffective = 2026-01-01\ninput = \"1\"\noutput = \"4\"\n\
         [[price]]\nprovider = \"acme\"\nmodel = \"m1\"\neffective = 2026-01-01\ninput = 1\noutput = 2\n",
    ));
    let at = ts("2026-06-01T00:00:00Z");
    assert_eq!(table.find(None, "o3", at).unwrap().prices.input, dec("1"));
    assert!(
        table.find(None, "o3", ts("2025-07-01T00:00:00Z")).is_err(),
        "the built-in o3 rows are gone"
    );
    assert_eq!(
        table.find(Some("acme"), "m1", at).unwrap().id,
        "acme/m1@2026-01-01"
    );
    assert!(
        table.find(None, "gpt-5-mini", at).is_ok(),
        "other models keep theirs"
    );
}

#[test]
fn a_blank_model_name_is_never_looked_up() {
    // An alias that trims to nothing must not price calls that name no model.
    let table = price_file(
        "blank.toml",
        "[[price]]\nprovider = \"acme\"\nmodel = \"m1\"\naliases = [\" \"]\neffective = 2026-01-01\ninput = 1\noutput = 1\n",
    );
    let at = ts("2026-06-01T00:00:00Z");
    assert_eq!(table.find(None, "m1", at).unwrap().id, "acme/m1@2026-01-01");
    for blank in ["", "  ", "\u{b}"] {
        assert!(
            matches!(
                table.find(None, blank, at),
                Err(Unpriced::UnknownModel { .. })
            ),
            "{blank:?}"
        );
    }
}

#[test]
fn a_model_sold_by_several_needs_a_provider_unless_one_makes_it() {
    let table = price_file(
        "litellm.json",
        r#"{
  "gpt-4o": {"litellm_provider": "openai", "input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05},
  "azure/gpt-4o": {"litellm_provider": "azure", "input_cost_per_token": 2.75e-06, "output_cost_per_token": 1.1e-05},
  "azure/mistral-large": {"litellm_provider": "azure", "input_cost_per_token": 4e-06, "output_cost_per_token": 1.2e-05},
  "bedrock/mistral-large": {"litellm_provider": "bedrock", "input_cost_per_token": 4e-06, "output_cost_per_token": 1.2e-05}
}"#,
    );
    let at = ts("2026-06-01T00:00:00Z");
    assert_eq!(
        table.find(None, "gpt-4o", at).unwrap().id,
        "openai/gpt-4o@litellm"
    );
    assert_eq!(
        table
            .find(Some("azure.ai.openai"), "gpt-4o", at)
            .unwrap()
            .prices
            .input,
        dec("2.75")
    );
    assert!(matches!(
        table.find(None, "mistral-large", at),
        Err(Unpriced::AmbiguousProvider { .. })
    ));
}

#[test]
fn malformed_price_files_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("bad.toml");
    std::fs::write(&toml, "[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = 2026-01-01\ninput = \"three\"\noutput = 1\n").unwrap();
    let err = load_price_file(&toml).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:5:9: ", toml.display())),
        "{err}"
    );
    let json = dir.path().join("bad.json");
    std::fs::write(&json, "{\n  \"m\": {\"input_cost_per_token\": 1e-6,,}\n}").unwrap();
    let err = load_price_file(&json).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:2:", json.display())), "{err}");
    let missing = load_price_file(&dir.path().join("none.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("none.toml: cannot read price file"),
        "{missing}"
    );
}

#[test]
fn the_test_table_fixture_reads() {
    let table = load_price_file(&root().join("fixtures/prices/test.toml")).unwrap();
    assert_eq!(table.len(), 5);
}
