//! Decoder behaviour that objdump cannot judge.

use ppu_isa::{Invalid, Op, decode, decode_at, disassemble};

#[test]
fn unknown_word_names_address_and_word() {
    let e = decode_at(0x0001_0234, 0x7c00_030e).unwrap_err();
    assert_eq!(e.addr, 0x0001_0234);
    assert_eq!(e.word, 0x7c00_030e);
    let msg = e.to_string();
    assert!(
        msg.contains("0x00010234") && msg.contains("0x7c00030e") && msg.contains("31/391"),
        "{msg}"
    );
    assert_eq!(decode(0).unwrap_err(), Invalid::UnknownOpcode);
}

#[test]
fn isa3_mffs_variants_are_mffs_on_the_cell() {
    // mffs f1, mffsce f1, mffscrn f1,f2, mffscrni f1,3, mffsl f1
    for w in [
        0xfc20_048e,
        0xfc21_048e,
        0xfc36_148e,
        0xfc37_1c8e,
        0xfc38_048e,
    ] {
        assert_eq!(decode(w).unwrap().op, Op::Mffs, "{w:#x}");
    }
}

#[test]
fn spr_access_is_limited_to_user_sprs() {
    assert_eq!(decode(0x7c68_02a6).unwrap().op, Op::Mfspr); // mflr r3
    assert_eq!(decode(0x7c6c_42a6).unwrap().op, Op::Mfspr); // mfspr r3,268 (tb)
    assert_eq!(
        decode(0x7c71_0aa6).unwrap_err(),
        Invalid::UnsupportedSpr(49)
    ); // spr 49
    assert_eq!(
        decode(0x7c6c_43a6).unwrap_err(),
        Invalid::UnsupportedSpr(268)
    ); // mttbl: supervisor
    assert_eq!(decode(0x7c6c_42e6).unwrap().op, Op::Mftb);
}

#[test]
fn fields_read_as_the_isa_numbers_them() {
    let i = decode(0x7863_c00c).unwrap(); // rldimi r3,r3,24,0 (sh 24, mb 0)
    assert_eq!((i.op, i.sh64(), i.mb64()), (Op::Rldimi, 24, 0));
    let i = decode(0x7863_a00e).unwrap(); // rldimi with sh bit 5 set: sh = 20 + 32
    assert_eq!(i.sh64(), 52);
    let i = decode(0x4bff_fff1).unwrap(); // bl -16
    assert_eq!(i.branch_target(0x1_0010), Some(0x1_0000));
    assert!(i.lk());
    assert_eq!(
        disassemble(decode(0x3860_ffff).unwrap(), 0),
        "addi    r3,0,-1"
    );
    let i = decode(0x1060_1b0c | 0x1f << 16).unwrap(); // vspltisb v3,-1
    assert_eq!((i.op, i.vsimm()), (Op::Vspltisb, -1));
}
