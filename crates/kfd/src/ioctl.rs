//! KFD ioctl request numbers. (Being written: issue #2.)
