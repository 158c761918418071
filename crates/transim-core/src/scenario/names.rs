//! Names the build makes per flow, node and link direction ("s17", "s17->r1", "flows[17].app"),
//! each allocated once at its final length. `format!` starts a short name's buffer small and
//! grows it as the pieces arrive, and a build of 100,000 flows makes more than a million such
//! names: its reallocations were a fifth of the build's instructions.

/// The decimal digits of `i`, written into `buf`.
pub(super) fn decimal(mut i: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).expect("ASCII digits")
}

/// `prefix`, the number `i`, then `suffix`, as one string.
pub(super) fn numbered(prefix: &str, i: u64, suffix: &str) -> String {
    let mut buf = [0u8; 20];
    let digits = decimal(i, &mut buf);
    joined(&[prefix, digits, suffix])
}

/// The concatenation of `parts`.
pub(super) fn joined(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_format_would_write_them() {
        for i in [0, 7, 10, 99, 100, 12_345, 100_000, u64::MAX] {
            assert_eq!(numbered("s", i, ""), format!("s{i}"));
            assert_eq!(numbered("flows[", i, "].app"), format!("flows[{i}].app"));
            let mut buf = [0u8; 20];
            assert_eq!(decimal(i, &mut buf), i.to_string());
        }
        let s = joined(&["s3", "->", "r1"]);
        assert_eq!(s, "s3->r1");
        assert_eq!(s.capacity(), s.len());
    }
}
