//! GFX9 decoder.
