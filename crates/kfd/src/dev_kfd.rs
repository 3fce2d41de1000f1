//! The real device over /dev/kfd. (Being written: issue #2.)
#[derive(Debug)]
pub struct DevKfd {}
