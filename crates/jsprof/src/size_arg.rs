//! Sizes in bytes as the command line (`serve --max-upload 2G`, `lake sql --max-memory`) and the
//! budget file (`"20 MB"`) write them: a number and a unit, B, K, M or G (1 K = 1024 B).

/// The power of two a size's unit stands for: B (or none) 0, K/KB/KiB 10, M/MB/MiB 20, G/GB/GiB
/// 30, in any case; `None` for another unit.
pub fn unit_shift(unit: &str) -> Option<u32> {
    match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => Some(0),
        "K" | "KB" | "KIB" => Some(10),
        "M" | "MB" | "MIB" => Some(20),
        "G" | "GB" | "GIB" => Some(30),
        _ => None,
    }
}

/// A size argument for clap: whole bytes, or with K, M or G.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("bad size `{text}`: expected a number of bytes, or with K, M or G"))?;
    let Some(shift) = unit_shift(unit) else {
        return Err(format!("bad size `{text}`: the unit must be K, M or G"));
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("size `{text}` is too large"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        assert_eq!(super::parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(super::parse_size("512k").unwrap(), 512 << 10);
        assert_eq!(super::parse_size("100").unwrap(), 100);
        assert!(super::parse_size("12X").is_err());
        assert!(super::parse_size("G").is_err());
    }
}
