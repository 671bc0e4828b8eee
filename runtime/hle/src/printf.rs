//! C `printf` formatting of a guest format string and variadic guest
//! arguments (`_sys_printf`). Variadic arguments are all in integer slots
//! (the ELF ABI passes a variadic `double` in a GPR slot too).

use lv2::{CellError, GuestThread};

use crate::args::ArgReader;

/// Formats `fmt` (guest bytes) with the variadic arguments from `args`.
pub fn format(t: &GuestThread, fmt: &[u8], mut args: ArgReader) -> Result<Vec<u8>, CellError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let (mut left, mut zero, mut plus, mut space, mut alt) =
            (false, false, false, false, false);
        while i < fmt.len() {
            match fmt[i] {
                b'-' => left = true,
                b'0' => zero = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        if i < fmt.len() && fmt[i] == b'*' {
            width = args.gpr(t)? as i32 as usize;
            i += 1;
        }
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = width * 10 + usize::from(fmt[i] - b'0');
            i += 1;
        }
        let mut prec: Option<usize> = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            let mut p = 0usize;
            if i < fmt.len() && fmt[i] == b'*' {
                p = args.gpr(t)? as i32 as usize;
                i += 1;
            }
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                p = p * 10 + usize::from(fmt[i] - b'0');
                i += 1;
            }
            prec = Some(p);
        }
        let mut long = 0;
        let mut half = 0;
        while i < fmt.len() && matches!(fmt[i], b'l' | b'h' | b'z' | b'j' | b't' | b'q' | b'L') {
            match fmt[i] {
                b'h' => half += 1,
                _ => long += 1,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let body: Vec<u8> = match conv {
            b'd' | b'i' => {
                let raw = args.gpr(t)?;
                let v = if long > 0 {
                    raw as i64
                } else if half == 1 {
                    i64::from(raw as i16)
                } else if half >= 2 {
                    i64::from(raw as i8)
                } else {
                    i64::from(raw as i32)
                };
                let mut s = v.unsigned_abs().to_string();
                if let Some(p) = prec {
                    while s.len() < p {
                        s.insert(0, '0');
                    }
                }
                let sign = if v < 0 {
                    "-"
                } else if plus {
                    "+"
                } else if space {
                    " "
                } else {
                    ""
                };
                pad_number(sign, s, width, left, zero && prec.is_none())
            }
            b'u' | b'x' | b'X' | b'o' => {
                let raw = args.gpr(t)?;
                let v = if long > 0 {
                    raw
                } else if half == 1 {
                    u64::from(raw as u16)
                } else if half >= 2 {
                    u64::from(raw as u8)
                } else {
                    u64::from(raw as u32)
                };
                let mut s = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = prec {
                    while s.len() < p {
                        s.insert(0, '0');
                    }
                }
                let prefix = match (alt && v != 0, conv) {
                    (true, b'x') => "0x",
                    (true, b'X') => "0X",
                    (true, b'o') => "0",
                    _ => "",
                };
                pad_number(prefix, s, width, left, zero && prec.is_none())
            }
            b'p' => pad_number(
                "0x",
                format!("{:08x}", args.gpr(t)? as u32),
                width,
                left,
                false,
            ),
            b'c' => pad_bytes(vec![args.gpr(t)? as u8], width, left),
            b's' => {
                let a = args.gpr(t)? as u32;
                let mut s = if a == 0 {
                    b"(null)".to_vec()
                } else {
                    t.process
                        .mem
                        .read_cstr(a, 1 << 20)
                        .map_err(|_| CellError::EFAULT)?
                };
                if let Some(p) = prec {
                    s.truncate(p);
                }
                pad_bytes(s, width, left)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                let v = f64::from_bits(args.gpr(t)?);
                let p = prec.unwrap_or(6);
                let s = match conv {
                    b'e' => format!("{v:.p$e}"),
                    b'E' => format!("{v:.p$E}"),
                    b'g' | b'G' => format!("{v}"),
                    _ => format!("{:.*}", p, v.abs()),
                };
                let (sign, s) = match conv {
                    b'f' | b'F' => (
                        if v.is_sign_negative() && v != 0.0 {
                            "-"
                        } else if plus {
                            "+"
                        } else {
                            ""
                        },
                        s,
                    ),
                    _ => ("", s),
                };
                pad_number(sign, s, width, left, zero)
            }
            b'%' => b"%".to_vec(),
            b'n' => {
                let _ = args.gpr(t)?;
                Vec::new()
            }
            other => vec![b'%', other],
        };
        out.extend_from_slice(&body);
    }
    Ok(out)
}

fn pad_number(prefix: &str, digits: String, width: usize, left: bool, zero: bool) -> Vec<u8> {
    let len = prefix.len() + digits.len();
    let fill = width.saturating_sub(len);
    let mut s = String::new();
    if left {
        s.push_str(prefix);
        s.push_str(&digits);
        s.extend(std::iter::repeat_n(' ', fill));
    } else if zero {
        s.push_str(prefix);
        s.extend(std::iter::repeat_n('0', fill));
        s.push_str(&digits);
    } else {
        s.extend(std::iter::repeat_n(' ', fill));
        s.push_str(prefix);
        s.push_str(&digits);
    }
    s.into_bytes()
}

fn pad_bytes(b: Vec<u8>, width: usize, left: bool) -> Vec<u8> {
    let fill = width.saturating_sub(b.len());
    let mut out = Vec::with_capacity(b.len() + fill);
    if !left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(&b);
    if left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out
}
