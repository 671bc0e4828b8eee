//! Names of system-module functions by FNID, for naming imports that
//! nothing implements. The list is the guest SDK's import catalogue plus
//! `names.txt` (more public function names of the same modules).

use std::collections::HashMap;
use std::sync::OnceLock;

const SDK_CATALOGUE: &str = include_str!("../../guest-sdk/imports.txt");
const MORE_NAMES: &str = include_str!("names.txt");

fn table() -> &'static HashMap<u32, &'static str> {
    static T: OnceLock<HashMap<u32, &'static str>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m = HashMap::new();
        for line in SDK_CATALOGUE.lines() {
            let mut w = line.split_whitespace();
            if let (Some(module), Some(name)) = (w.next(), w.next())
                && !module.starts_with('#')
            {
                m.insert(crate::fnid(name), name);
            }
        }
        for name in MORE_NAMES
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            m.insert(crate::fnid(name), name);
        }
        m
    })
}

/// The function name of `fnid`, when known.
pub fn lookup(fnid: u32) -> Option<&'static str> {
    table().get(&fnid).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_names_resolve() {
        assert_eq!(lookup(0xE6F2_C1E7), Some("sys_process_exit"));
        assert_eq!(
            lookup(crate::fnid("cellGcmSetWaitFlip")),
            Some("cellGcmSetWaitFlip")
        );
        assert_eq!(lookup(0), None);
    }
}
