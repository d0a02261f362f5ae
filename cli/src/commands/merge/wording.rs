//! How the merge's messages list and count things.

/// `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `1 missing shard`, `2 missing shards`.
pub fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_lists_read_as_prose() {
        let items = ["a", "b", "c"].map(str::to_owned);
        assert_eq!(and_list(&items[..1]), "a");
        assert_eq!(and_list(&items[..2]), "a and b");
        assert_eq!(and_list(&items), "a, b and c");
        assert_eq!(counted(1, "shard", "shards"), "1 shard");
        assert_eq!(counted(0, "shard", "shards"), "0 shards");
    }
}
