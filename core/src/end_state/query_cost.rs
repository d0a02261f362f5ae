//! The bound on a `json_query`'s work (docs/task-file.md#json_query). The agent writes the
//! file, and a query of nested descendants and filters (`$..[?@..[?@..x]]`) does work that
//! grows as a power of the file's size, so the query may not simply run. Before it runs, a
//! dry run walks the document as the query would, taking every filter as true, and counts
//! each node it visits, selects or compares; the query runs only when that count stays
//! within the limit. The JSONPath library does no more than the dry run counts, up to a
//! constant factor (and moving each level's list of pointers into its parent's, once per
//! level of nesting, at most 128), so no query holds a grader for long.

use serde_json::Value;

/// The most steps (nodes visited, selected or compared) a `json_query` may take.
pub(crate) const QUERY_STEPS: u64 = 10_000_000;

/// What is left of a check's steps.
#[derive(Debug)]
pub(crate) struct Budget {
    left: u64,
}

/// The budget ran out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Exceeded;

impl Budget {
    pub(crate) fn new(steps: u64) -> Self {
        Budget { left: steps }
    }

    /// Takes `steps`, or says the budget ran out.
    pub(crate) fn take(&mut self, steps: u64) -> Result<(), Exceeded> {
        self.left = self.left.checked_sub(steps).ok_or(Exceeded)?;
        Ok(())
    }
}

/// Counts the nodes of `value` (itself and everything inside), each a step.
pub(crate) fn take_size(value: &Value, budget: &mut Budget) -> Result<u64, Exceeded> {
    let mut stack = vec![value];
    let mut size = 0;
    while let Some(node) = stack.pop() {
        budget.take(1)?;
        size += 1;
        stack.extend(children(node));
    }
    Ok(size)
}

/// Dry-runs `query` on `doc`, taking its steps from `budget`. `Err(None)` is a query this
/// reader does not follow: it cannot be bounded, so it does not run either.
pub(crate) fn dry_run(
    query: &str,
    doc: &Value,
    budget: &mut Budget,
) -> Result<(), Option<Exceeded>> {
    let mut reader = Reader {
        text: query.as_bytes(),
        at: 0,
    };
    let path = reader.path().ok_or(None)?;
    reader.blank();
    if reader.at != reader.text.len() {
        return Err(None);
    }
    nodes(&path, doc, doc, budget).map_err(Some)?;
    Ok(())
}

/// A query as the dry run needs it: where it starts and its segments.
#[derive(Debug)]
struct Query {
    absolute: bool,
    segments: Vec<Segment>,
}

#[derive(Debug)]
struct Segment {
    descendant: bool,
    selectors: Vec<Selector>,
}

#[derive(Debug)]
enum Selector {
    /// A member name; `None` when it holds escapes, taken as any member (a superset).
    Name(Option<String>),
    Wildcard,
    Index(i64),
    Slice,
    /// A filter, as the costs of the tests and comparisons in it.
    Filter(Vec<Term>),
}

/// One costly part of a filter.
#[derive(Debug)]
enum Term {
    /// A query run for its nodes (an existence test, a function's argument).
    Run(Query),
    /// A comparison: its sides are evaluated and compared, at the cost of the smaller.
    Compare(Side, Side),
}

#[derive(Debug)]
enum Side {
    /// A literal, or a function whose result is a number or a truth value.
    Small(Vec<Query>),
    /// A singular query, or a function that may return a node (`value`).
    Node(Vec<Query>),
}

/// The nodes `query` selects from `current`, a superset of the real ones (every filter
/// holds).
fn nodes<'v>(
    query: &Query,
    current: &'v Value,
    root: &'v Value,
    budget: &mut Budget,
) -> Result<Vec<&'v Value>, Exceeded> {
    let mut list = vec![if query.absolute { root } else { current }];
    for segment in &query.segments {
        let mut next = Vec::new();
        for node in list {
            if !segment.descendant {
                select(&segment.selectors, node, root, budget, &mut next)?;
                continue;
            }
            let mut stack = vec![node];
            while let Some(node) = stack.pop() {
                budget.take(1)?;
                select(&segment.selectors, node, root, budget, &mut next)?;
                stack.extend(children(node));
            }
        }
        list = next;
    }
    Ok(list)
}

/// Applies one segment's selectors to `node`, pushing what they select.
fn select<'v>(
    selectors: &[Selector],
    node: &'v Value,
    root: &'v Value,
    budget: &mut Budget,
    out: &mut Vec<&'v Value>,
) -> Result<(), Exceeded> {
    for selector in selectors {
        let before = out.len();
        match selector {
            Selector::Name(Some(name)) => out.extend(node.get(name.as_str())),
            Selector::Name(None) => {
                out.extend(node.as_object().into_iter().flat_map(|o| o.values()))
            }
            Selector::Wildcard => out.extend(children(node)),
            Selector::Slice => out.extend(node.as_array().into_iter().flatten()),
            Selector::Index(index) => {
                let items = node.as_array().map_or(&[][..], Vec::as_slice);
                let at = if *index < 0 {
                    usize::try_from(index.unsigned_abs())
                        .ok()
                        .and_then(|back| items.len().checked_sub(back))
                } else {
                    usize::try_from(*index).ok()
                };
                out.extend(at.and_then(|at| items.get(at)));
            }
            Selector::Filter(terms) => {
                for child in children(node) {
                    budget.take(1)?;
                    for term in terms {
                        cost(term, child, root, budget)?;
                    }
                    out.push(child);
                }
            }
        }
        budget.take((out.len() - before) as u64)?;
    }
    Ok(())
}

/// Takes the steps of one filter term on one candidate.
fn cost(term: &Term, current: &Value, root: &Value, budget: &mut Budget) -> Result<(), Exceeded> {
    match term {
        Term::Run(query) => nodes(query, current, root, budget).map(drop),
        Term::Compare(left, right) => {
            let left = side(left, current, root, budget)?;
            let right = side(right, current, root, budget)?;
            budget.take(left.min(right))
        }
    }
}

/// The size of what one side of a comparison yields, after taking its queries' steps.
fn side(side: &Side, current: &Value, root: &Value, budget: &mut Budget) -> Result<u64, Exceeded> {
    let (queries, small) = match side {
        Side::Small(queries) => (queries, true),
        Side::Node(queries) => (queries, false),
    };
    let mut size = 1;
    for query in queries {
        for node in nodes(query, current, root, budget)? {
            if !small {
                size = size.max(take_size(node, budget)?);
            }
        }
    }
    Ok(size)
}

/// The children of an array or object, in order.
fn children(value: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match value {
        Value::Array(items) => Box::new(items.iter()),
        Value::Object(map) => Box::new(map.values()),
        _ => Box::new(std::iter::empty()),
    }
}

/// Reads a query the JSONPath library has already accepted; it follows the grammar only
/// as far as the dry run needs (RFC 9535, section 2).
struct Reader<'q> {
    text: &'q [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.get(self.at + ahead).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// `$` or `@` and its segments.
    fn path(&mut self) -> Option<Query> {
        let absolute = match self.peek()? {
            b'$' => true,
            b'@' => false,
            _ => return None,
        };
        self.at += 1;
        let mut segments = Vec::new();
        loop {
            let start = self.at;
            self.blank();
            match (self.peek(), self.peek_at(1)) {
                (Some(b'.'), Some(b'.')) => {
                    self.at += 2;
                    segments.push(Segment {
                        descendant: true,
                        selectors: self.after_dot(true)?,
                    });
                }
                (Some(b'.'), _) => {
                    self.at += 1;
                    segments.push(Segment {
                        descendant: false,
                        selectors: self.after_dot(false)?,
                    });
                }
                (Some(b'['), _) => segments.push(Segment {
                    descendant: false,
                    selectors: self.bracketed()?,
                }),
                _ => {
                    self.at = start;
                    return Some(Query { absolute, segments });
                }
            }
        }
    }

    /// What follows `.` or `..`: `*`, a member name or (after `..` only) a bracket.
    fn after_dot(&mut self, descendant: bool) -> Option<Vec<Selector>> {
        if self.eat(b'*') {
            return Some(vec![Selector::Wildcard]);
        }
        if descendant && self.peek() == Some(b'[') {
            return self.bracketed();
        }
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80)
        {
            self.at += 1;
        }
        let name = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        (!name.is_empty()).then(|| vec![Selector::Name(Some(name.to_owned()))])
    }

    /// `[selector, ...]`.
    fn bracketed(&mut self) -> Option<Vec<Selector>> {
        if !self.eat(b'[') {
            return None;
        }
        let mut selectors = Vec::new();
        loop {
            self.blank();
            selectors.push(self.selector()?);
            self.blank();
            if self.eat(b']') {
                return Some(selectors);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    fn selector(&mut self) -> Option<Selector> {
        match self.peek()? {
            b'*' => {
                self.at += 1;
                Some(Selector::Wildcard)
            }
            b'\'' | b'"' => {
                let raw = self.string()?;
                let inner = &raw[1..raw.len() - 1];
                Some(Selector::Name(
                    (!inner.contains('\\')).then(|| inner.to_owned()),
                ))
            }
            b'?' => {
                self.at += 1;
                Some(Selector::Filter(self.filter(b",]")?))
            }
            _ => {
                let start = self.at;
                while matches!(
                    self.peek(),
                    Some(b'0'..=b'9' | b'-' | b':' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.text[start..self.at]).ok()?.trim();
                if text.contains(':') {
                    Some(Selector::Slice)
                } else {
                    text.parse().ok().map(Selector::Index)
                }
            }
        }
    }

    /// A string literal, quotes included.
    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b if b == quote => break,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        String::from_utf8(self.text.get(start..self.at)?.to_vec()).ok()
    }

    /// A filter expression up to one of `ends` outside parentheses, as its costly terms.
    fn filter(&mut self, ends: &[u8]) -> Option<Vec<Term>> {
        let mut items = Vec::new();
        let mut depth = 0_usize;
        loop {
            self.blank();
            let byte = self.peek()?;
            if depth == 0 && ends.contains(&byte) {
                break;
            }
            match byte {
                b'(' => {
                    depth += 1;
                    self.at += 1;
                    items.push(Item::Other);
                }
                b')' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                    items.push(Item::Other);
                }
                b'$' | b'@' => items.push(Item::Side(Side::Node(vec![self.path()?]))),
                b'\'' | b'"' => {
                    self.string()?;
                    items.push(Item::Side(Side::Small(Vec::new())));
                }
                b'=' | b'<' | b'>' => {
                    self.at += 1;
                    self.eat(b'=');
                    items.push(Item::Compare);
                }
                b'!' if self.peek_at(1) == Some(b'=') => {
                    self.at += 2;
                    items.push(Item::Compare);
                }
                b if b.is_ascii_lowercase() => {
                    let start = self.at;
                    while self
                        .peek()
                        .is_some_and(|b| b == b'_' || b.is_ascii_lowercase() || b.is_ascii_digit())
                    {
                        self.at += 1;
                    }
                    let name = self.text[start..self.at].to_vec();
                    if self.eat(b'(') {
                        items.push(Item::Side(self.function(&name)?));
                    } else {
                        items.push(Item::Side(Side::Small(Vec::new())));
                    }
                }
                b if b == b'-' || b.is_ascii_digit() => {
                    while self.peek().is_some_and(|b| {
                        b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                    }) {
                        self.at += 1;
                    }
                    items.push(Item::Side(Side::Small(Vec::new())));
                }
                _ => {
                    self.at += 1;
                    items.push(Item::Other);
                }
            }
        }
        Some(terms(items))
    }

    /// A function's arguments, after its `(`, as the side it makes of a comparison.
    fn function(&mut self, name: &[u8]) -> Option<Side> {
        let mut queries = Vec::new();
        loop {
            for term in self.filter(b",)")? {
                match term {
                    Term::Run(query) => queries.push(query),
                    Term::Compare(left, right) => {
                        for side in [left, right] {
                            let (Side::Small(found) | Side::Node(found)) = side;
                            queries.extend(found);
                        }
                    }
                }
            }
            if self.eat(b')') {
                break;
            }
            if !self.eat(b',') {
                return None;
            }
        }
        Some(match name {
            b"length" | b"count" | b"match" | b"search" => Side::Small(queries),
            _ => Side::Node(queries),
        })
    }
}

/// One piece of a filter expression as it is read.
enum Item {
    Side(Side),
    Compare,
    Other,
}

/// Pairs the sides around each comparison operator; every other query runs on its own.
fn terms(items: Vec<Item>) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut items = items.into_iter().peekable();
    let mut pending: Option<Side> = None;
    while let Some(item) = items.next() {
        match item {
            Item::Side(side) => {
                if let Some(previous) = pending.replace(side) {
                    terms.extend(run_alone(previous));
                }
            }
            Item::Compare => {
                let left = pending.take().unwrap_or(Side::Small(Vec::new()));
                let right = match items.next() {
                    Some(Item::Side(side)) => side,
                    _ => Side::Small(Vec::new()),
                };
                terms.push(Term::Compare(left, right));
            }
            Item::Other => terms.extend(pending.take().into_iter().flat_map(run_alone)),
        }
    }
    terms.extend(pending.into_iter().flat_map(run_alone));
    terms
}

/// A side outside any comparison: its queries run for their nodes.
fn run_alone(side: Side) -> Vec<Term> {
    let (Side::Small(queries) | Side::Node(queries)) = side;
    queries.into_iter().map(Term::Run).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json_path::JsonPath;

    /// Steps the dry run takes, with no limit.
    fn steps(query: &str, doc: &Value) -> u64 {
        let mut budget = Budget::new(u64::MAX);
        dry_run(query, doc, &mut budget).unwrap();
        u64::MAX - budget.left
    }

    fn found(query: &str, doc: &Value) -> usize {
        let mut reader = Reader {
            text: query.as_bytes(),
            at: 0,
        };
        let path = reader.path().unwrap();
        nodes(&path, doc, doc, &mut Budget::new(u64::MAX))
            .unwrap()
            .len()
    }

    #[test]
    fn the_dry_run_finds_at_least_what_the_query_finds() {
        let doc = json!({
            "orders": {"W1": {"status": "pending", "items": [{"id": "L7"}, {"id": "L8"}]}},
            "transactions": [
                {"recipient": "X", "amount": 5, "tags": ["a", "b"]},
                {"recipient": "Y", "amount": 100},
                {"recipient": "X", "amount": 7.5}
            ],
            "a b": [1, 2, 3, 4],
            "it's": 1
        });
        for query in [
            "$.orders.W1.status",
            "$.orders.W1.items[*].id",
            "$.transactions[?@.recipient == 'X'].amount",
            "$.transactions[?@.recipient == 'X']",
            "$..[?@..x]",
            "$..*",
            "$..amount",
            "$['a b'][1:3]",
            "$['a b'][-1, 0, 9]",
            "$[\"it's\"]",
            "$['it\\'s']",
            "$.transactions[? length(@.tags) > 1 && !(@.amount < 6)].recipient",
            "$..[?count(@..*) >= 2 || search(@.recipient, 'X')]",
            "$.transactions[0]..tags[ * ]",
            "$[ 'transactions' , 'orders' ][ 0 ]",
            "$[?value(@..status) == 'pending']",
            "$.transactions[?@.amount == $.transactions[0].amount, ?@.amount > -1e3]",
        ] {
            let real = JsonPath::parse(query).unwrap().query(&doc).all().len();
            assert!(found(query, &doc) >= real, "{query}");
            assert!(steps(query, &doc) >= real as u64, "{query}");
        }
    }

    #[test]
    fn nested_descendant_filters_cost_a_power_of_the_size() {
        let doc = json!([[[[[1, [2]]]]], [[[[3, [4]]]]], [[[[5, [6]]]]]]);
        let one = steps("$..[?@..x]", &doc);
        let three = steps("$..[?@..[?@..[?@..x]]]", &doc);
        assert!(three > 4 * one, "{one} {three}");
    }

    #[test]
    fn a_query_it_cannot_read_is_not_bounded() {
        let mut budget = Budget::new(10);
        assert_eq!(dry_run("$.a)", &json!({}), &mut budget), Err(None));
        assert_eq!(
            dry_run("$..*", &json!([[1, 2], [3, 4]]), &mut budget),
            Err(Some(Exceeded))
        );
    }
}
