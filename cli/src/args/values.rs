//! Value parsers shared by several commands' options.

/// A share, 0 to 1: a pass rate, a TPR, a TNR.
pub fn parse_share(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}

/// Cohen's κ, -1 to 1.
pub fn parse_kappa(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (-1.0..=1.0).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is not between -1 and 1")),
        Err(_) => Err(format!("{text:?} is not a number")),
    }
}
