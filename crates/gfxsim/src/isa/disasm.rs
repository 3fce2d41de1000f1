pub fn disassemble(_i: &super::inst::Inst) -> String {
    String::new()
}
