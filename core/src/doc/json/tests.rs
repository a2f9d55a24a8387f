//! The reader's and the writer's tests: RFC 8259 test cases, truncations, mutations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

extern crate std;

use super::*;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn skip_doc(doc: &[u8]) -> Result<(), JsonError> {
    let mut r = Reader::new(doc);
    r.skip_value()?;
    r.end()
}

fn fail(doc: &[u8]) -> (ErrorKind, usize) {
    let e = skip_doc(doc).expect_err(&String::from_utf8_lossy(doc));
    (e.kind, e.offset)
}

fn fails(doc: &str, kind: ErrorKind, offset: usize) {
    assert_eq!(fail(doc.as_bytes()), (kind, offset), "document {doc:?}");
}

/// Reads every value through the typed API, the way callers do.
fn walk(r: &mut Reader<'_>) -> Result<(), JsonError> {
    match r.peek()? {
        Kind::Object => {
            r.begin_object()?;
            while let Some((k, _)) = r.next_key()? {
                let _ = k.decoded_len();
                walk(r)?;
            }
        }
        Kind::Array => {
            r.begin_array()?;
            while r.next_element()? {
                walk(r)?;
            }
        }
        Kind::String => {
            r.string()?;
        }
        Kind::Number => {
            r.f64()?;
        }
        Kind::Bool => {
            r.bool()?;
        }
        Kind::Null => r.skip_value()?,
    }
    Ok(())
}

fn walk_doc(doc: &[u8]) -> Result<(), JsonError> {
    let mut r = Reader::new(doc);
    walk(&mut r)?;
    r.end()
}

/// Reads objects field by field with begin_object/next_key, skipping values.
fn object_fields(doc: &[u8]) -> Result<usize, JsonError> {
    let mut r = Reader::new(doc);
    r.begin_object()?;
    let mut n = 0;
    while r.next_key()?.is_some() {
        r.skip_value()?;
        n += 1;
    }
    r.end()?;
    Ok(n)
}

const DOCS: [&str; 4] = [
    r#"{"name":"caf\u00e9 \ud83d\ude00 ☕ é","n":[0.0096,-1.5e-3,12,0,-0,1E+2,3.25e10],"o":{"a":true,"b":false,"c":null,"d":{},"e":[[],[{}]]},"s":"\"\\\/\b\f\n\r\t"}"#,
    "\n {\n  \"a\" : 0.0096 ,\n\t\"b\": [ 1 , 2.5 , -3e-2 ] ,\r\n  \"c\" : { \"x\" : [ null , true , false , \"\u{10348}x\" ] } \n}\n  ",
    r#"{"k":123,"deep":[[[[{"z":[1,{"y":"\uD834\uDD1E"}]}]]]],"u":"\u0000\u001f\u007F\u20AC"}"#,
    "{}",
];

#[test]
fn valid_documents_read() {
    for doc in DOCS {
        skip_doc(doc.as_bytes()).unwrap();
        walk_doc(doc.as_bytes()).unwrap();
        object_fields(doc.as_bytes()).unwrap();
    }
    assert_eq!(object_fields(DOCS[0].as_bytes()), Ok(4));
    skip_doc(b"[1,[2,{\"a\":[]}],\"x\"] \t\r\n").unwrap();
    skip_doc(b"-0.5e+7").unwrap();
    skip_doc(b"\"top\"").unwrap();
    skip_doc(b"null").unwrap();
}

#[test]
fn every_prefix_is_truncated() {
    for doc in DOCS {
        let bytes = doc.as_bytes();
        let content_end = doc.trim_end().len();
        for cut in 0..=bytes.len() {
            let p = &bytes[..cut];
            let results = [skip_doc(p), walk_doc(p), object_fields(p).map(|_| ())];
            for res in results {
                if cut < content_end {
                    let e = res.expect_err("prefix accepted");
                    assert_eq!(e.kind, ErrorKind::Truncated, "cut {cut} of {doc:?}: {e}");
                    assert!(e.offset <= cut);
                } else {
                    res.unwrap();
                }
            }
        }
    }
}

#[test]
fn truncation_cases() {
    let t = ErrorKind::Truncated;
    fails("[0", t, 2);
    fails("[0.", t, 3);
    fails("[-", t, 2);
    fails("[1e", t, 3);
    fails("[1e-", t, 4);
    fails("[tru", t, 4);
    fails("[\"\\ud83d", t, 8);
    fails("[\"\\ud83d\\", t, 9);
    fails("[\"\\ud83d\\u", t, 10);
    fails("[\"\\ud83d\\ude0", t, 13);
    fails("[\"\\", t, 3);
    fails("[\"\\u00", t, 6);
    fails("{\"a\"", t, 4);
    fails("{\"a\":", t, 5);
    fails("{\"a\":1,", t, 7);
    fails("", t, 0);
    fails("  ", t, 2);
    assert_eq!(fail(b"[\"\xE2\x82"), (t, 4));
    // A cut-off number whose prefix would overflow is still a cut.
    let big = format!("[1{}", "0".repeat(400));
    assert_eq!(walk_doc(big.as_bytes()).unwrap_err().kind, t);
}

#[test]
fn number_rejections() {
    let n = ErrorKind::InvalidNumber;
    for bad in [
        ".5",
        "+0.5",
        "5.",
        "05",
        "-",
        "1e",
        "1e+",
        "0x1",
        "Infinity",
        "-Infinity",
        "NaN",
        "nan",
        "1.5.2",
        "1e5e",
        "-.5",
        "00",
        "-01",
        "1.e3",
        "1_0",
        "0-1",
    ] {
        fails(&format!("[{bad}]"), n, 1);
        fails(&format!("{{\"k\": {bad}}}"), n, 6);
    }
    fails("[1, 2, 03]", n, 7);
}

#[test]
fn word_and_quote_rejections() {
    fails("[hello]", ErrorKind::BareWord, 1);
    fails("[True]", ErrorKind::BareWord, 1);
    fails("[nul]", ErrorKind::BareWord, 1);
    fails("{\"a\":nul}", ErrorKind::BareWord, 5);
    fails("[truex]", ErrorKind::BareWord, 1);
    fails("[nulls", ErrorKind::BareWord, 1);
    fails("['a']", ErrorKind::SingleQuote, 1);
    fails("{'a':1}", ErrorKind::SingleQuote, 1);
    fails("{\"a\":'b'}", ErrorKind::SingleQuote, 5);
}

#[test]
fn string_rejections() {
    fails("[\"a\u{1}b\"]", ErrorKind::ControlCharacter, 3);
    fails("[\"a\nb\"]", ErrorKind::ControlCharacter, 3);
    fails("[\"\t\"]", ErrorKind::ControlCharacter, 2);
    fails("{\"k\u{0}\":1}", ErrorKind::ControlCharacter, 3);
    for esc in ["\\x", "\\'", "\\U0041", "\\u12G4", "\\a", "\\0", "\\ ", "\\u-123"] {
        fails(&format!("[\"ab{esc}\"]"), ErrorKind::InvalidEscape, 4);
    }
    fails("[\"\\ud800\\u12x4\"]", ErrorKind::InvalidEscape, 8);
    fails("[\"\\ud800\"]", ErrorKind::LoneSurrogate, 2);
    fails("[\"\\udc00\"]", ErrorKind::LoneSurrogate, 2);
    fails("[\"\\uDFFF\\ud800\"]", ErrorKind::LoneSurrogate, 2);
    fails("[\"\\ud800\\u0041\"]", ErrorKind::LoneSurrogate, 2);
    fails("[\"\\ud800\\ud800\"]", ErrorKind::LoneSurrogate, 2);
    fails("[\"x\\ud800x\"]", ErrorKind::LoneSurrogate, 3);
    fails("[\"\\ud800\\n\"]", ErrorKind::LoneSurrogate, 2);
    assert_eq!(fail(b"[\"a\xFF\"]"), (ErrorKind::InvalidUtf8, 3));
    assert_eq!(fail(b"[\"ab\xC0\x80\"]"), (ErrorKind::InvalidUtf8, 4));
    assert_eq!(fail(b"[\"\xED\xA0\x80\"]"), (ErrorKind::InvalidUtf8, 2));
    assert_eq!(fail(b"[\"\xE2\x82\"]"), (ErrorKind::InvalidUtf8, 2));
    assert_eq!(fail(b"{\"\x80\":1}"), (ErrorKind::InvalidUtf8, 2));
}

#[test]
fn structure_rejections() {
    fails("[1,]", ErrorKind::TrailingComma, 2);
    fails("[1 , ]", ErrorKind::TrailingComma, 3);
    fails("{\"a\":1,}", ErrorKind::TrailingComma, 6);
    fails("{\"a\":1,\n}", ErrorKind::TrailingComma, 6);
    fails("[1 2]", ErrorKind::ExpectedCommaOrEnd, 3);
    fails("{\"a\":1 \"b\":2}", ErrorKind::ExpectedCommaOrEnd, 7);
    fails("{\"a\" 1}", ErrorKind::ExpectedColon, 5);
    fails("{\"a\",1}", ErrorKind::ExpectedColon, 4);
    fails("{1:2}", ErrorKind::ExpectedKey, 1);
    fails("{\"a\":1,2:3}", ErrorKind::ExpectedKey, 7);
    fails("{,}", ErrorKind::ExpectedKey, 1);
    fails("[}", ErrorKind::ExpectedValue, 1);
    fails("[,1]", ErrorKind::ExpectedValue, 1);
    fails("{\"a\":}", ErrorKind::ExpectedValue, 5);
    fails("[1}", ErrorKind::ExpectedCommaOrEnd, 2);
    fails("[{\"a\":1]]", ErrorKind::ExpectedCommaOrEnd, 7);
    fails("[[{]]", ErrorKind::ExpectedKey, 3);
    fails("{} x", ErrorKind::TrailingCharacters, 3);
    fails("{}{}", ErrorKind::TrailingCharacters, 2);
    fails("{}]", ErrorKind::TrailingCharacters, 2);
    // Only space, tab, LF and CR are whitespace.
    fails("[\u{c}1]", ErrorKind::ExpectedValue, 1);
    fails("[1\u{b}]", ErrorKind::ExpectedCommaOrEnd, 2);
    fails("\u{feff}{}", ErrorKind::ExpectedValue, 0);
    fails("{\u{a0}}", ErrorKind::ExpectedKey, 1);
}

#[test]
fn typed_reads() {
    let mut r = Reader::new(b" [ 18446744073709551615, 1.5, 1e3, -1, 18446744073709551616, 1e400, -1e400, 1e-400, \"1\", null, 7 ]");
    r.begin_array().unwrap();
    let next = |r: &mut Reader<'_>| assert!(r.next_element().unwrap());
    next(&mut r);
    assert_eq!(r.u64(), Ok(u64::MAX));
    next(&mut r);
    assert_eq!(r.u64().unwrap_err(), JsonError { offset: 25, kind: ErrorKind::NotWholeNumber });
    next(&mut r);
    assert_eq!(r.u64().unwrap_err().kind, ErrorKind::NotWholeNumber);
    next(&mut r);
    assert_eq!(r.u64().unwrap_err(), JsonError { offset: 35, kind: ErrorKind::Negative });
    next(&mut r);
    assert_eq!(r.u64().unwrap_err(), JsonError { offset: 39, kind: ErrorKind::IntegerOutOfRange });
    next(&mut r);
    assert_eq!(r.f64().unwrap_err(), JsonError { offset: 61, kind: ErrorKind::NumberOutOfRange });
    next(&mut r);
    assert_eq!(r.f64().unwrap_err().kind, ErrorKind::NumberOutOfRange);
    next(&mut r);
    assert_eq!(r.f64(), Ok(0.0));
    next(&mut r);
    assert_eq!(r.f64().unwrap_err().kind, ErrorKind::ExpectedNumber);
    assert_eq!(r.u64().unwrap_err().kind, ErrorKind::ExpectedNumber);
    assert_eq!(r.bool().unwrap_err().kind, ErrorKind::ExpectedBool);
    assert_eq!(r.begin_object().unwrap_err().kind, ErrorKind::ExpectedObject);
    assert_eq!(r.begin_array().unwrap_err().kind, ErrorKind::ExpectedArray);
    assert_eq!(r.peek(), Ok(Kind::String));
    assert!(r.string().unwrap().eq_str("1"));
    next(&mut r);
    assert_eq!(r.peek(), Ok(Kind::Null));
    assert_eq!(r.bool().unwrap_err(), JsonError { offset: 89, kind: ErrorKind::ExpectedBool });
    assert_eq!(r.f64().unwrap_err().kind, ErrorKind::ExpectedNumber);
    assert_eq!(r.string().unwrap_err().kind, ErrorKind::ExpectedString);
    r.skip_value().unwrap();
    next(&mut r);
    assert_eq!(r.f64(), Ok(7.0));
    assert!(!r.next_element().unwrap());
    r.end().unwrap();

    let mut r = Reader::new(b"{\"t\":true,\"f\":false,\"x\":[]}");
    r.begin_object().unwrap();
    let (k, at) = r.next_key().unwrap().unwrap();
    assert_eq!((k.raw(), at), ("t", 1));
    assert_eq!(r.next_element().unwrap_err().kind, ErrorKind::Misuse);
    assert_eq!(r.bool(), Ok(true));
    assert_eq!(r.next_key().unwrap().unwrap().1, 10);
    assert_eq!(r.bool(), Ok(false));
    r.next_key().unwrap().unwrap();
    r.begin_array().unwrap();
    assert_eq!(r.next_key().unwrap_err().kind, ErrorKind::Misuse);
    assert!(!r.next_element().unwrap());
    assert_eq!(r.end().unwrap_err().kind, ErrorKind::Misuse);
    assert_eq!(r.next_key(), Ok(None));
    assert_eq!(r.offset(), 27);
    r.end().unwrap();
    assert_eq!(r.peek().unwrap_err().kind, ErrorKind::Truncated);
    assert_eq!(r.next_key().unwrap_err().kind, ErrorKind::Misuse);

    let mut r = Reader::new(b"[NaN, Infinity, nul, tru");
    r.begin_array().unwrap();
    r.next_element().unwrap();
    assert_eq!(r.f64().unwrap_err().kind, ErrorKind::InvalidNumber);
    assert_eq!(r.peek().unwrap_err().kind, ErrorKind::InvalidNumber);
}

#[test]
fn messages() {
    let e = JsonError { offset: 17, kind: ErrorKind::Depth };
    assert_eq!(e.to_string(), "byte 17: nesting deeper than 128");
    assert!(ErrorKind::Depth.message().ends_with(&MAX_DEPTH.to_string()));
    assert_eq!(
        JsonError { offset: 0, kind: ErrorKind::Truncated }.to_string(),
        "byte 0: truncated document (unexpected end)"
    );
}

#[test]
fn depth_limit() {
    let n = 200_000;
    fails(&"[".repeat(n), ErrorKind::Depth, 128);
    fails(&"{\"a\":".repeat(n), ErrorKind::Depth, 128 * 5);
    fails(&"[{\"a\":".repeat(n), ErrorKind::Depth, 64 * 6);
    fails(&"{".repeat(n), ErrorKind::ExpectedKey, 1);
    let deep = "[".repeat(n);
    assert_eq!(walk_doc(deep.as_bytes()).unwrap_err().kind, ErrorKind::Depth);

    let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
    skip_doc(ok.as_bytes()).unwrap();
    let over = format!("{}{}", "[".repeat(129), "]".repeat(129));
    fails(&over, ErrorKind::Depth, 128);

    // The caller's own levels count against the same limit.
    let inner = |levels: usize| format!("{{\"a\":{}{}}}", "[".repeat(levels), "]".repeat(levels));
    for (levels, good) in [(127, true), (128, false)] {
        let doc = inner(levels);
        let mut r = Reader::new(doc.as_bytes());
        r.begin_object().unwrap();
        r.next_key().unwrap().unwrap();
        assert_eq!(r.skip_value().is_ok(), good);
    }

    // Brackets deep in the stack (past bit 64) are still matched.
    let mut doc = String::new();
    for i in 0..126 {
        doc.push_str(if i % 3 == 0 { "{\"k\":" } else { "[" });
    }
    let mut closers = String::new();
    for i in (0..126).rev() {
        closers.push(if i % 3 == 0 { '}' } else { ']' });
    }
    skip_doc(format!("{doc}1{closers}").as_bytes()).unwrap();
    for level in [99usize, 100] {
        let flip = 125 - level;
        let wrong: String = closers
            .char_indices()
            .map(|(i, c)| match (i == flip, c) {
                (true, '}') => ']',
                (true, _) => '}',
                (false, c) => c,
            })
            .collect();
        let doc = format!("{doc}1{wrong}");
        let (kind, at) = fail(doc.as_bytes());
        assert_eq!(kind, ErrorKind::ExpectedCommaOrEnd);
        assert_eq!(at, doc.len() - 126 + flip);
    }
}

#[test]
fn str_api() {
    let doc = r#"["caf\u00e9\n\ud83d\ude00\/", "plain é", "café\n😀/"]"#.as_bytes();
    let mut r = Reader::new(doc);
    r.begin_array().unwrap();
    r.next_element().unwrap();
    let a = r.string().unwrap();
    r.next_element().unwrap();
    let b = r.string().unwrap();
    r.next_element().unwrap();
    let c = r.string().unwrap();
    assert!(!r.next_element().unwrap());
    r.end().unwrap();

    assert_eq!(a.raw(), r"caf\u00e9\n\ud83d\ude00\/");
    assert_eq!(a.as_plain(), None);
    assert!(a.eq_str("café\n😀/"));
    assert!(!a.eq_str("café\n😀"));
    assert_eq!(a.chars().collect::<String>(), "café\n😀/");
    assert_eq!(a.decoded_len(), "café\n😀/".len());
    assert_eq!(format!("{a}"), "café\n😀/");
    assert_eq!(a, c);
    assert_ne!(a, b);
    assert_eq!(b.as_plain(), Some("plain é"));
    assert_eq!(b.decoded_len(), "plain é".len());
    assert_eq!(format!("{b}"), "plain é");
    assert!(b.eq_str("plain é"));

    let esc = br#""\"\\\/\b\f\n\r\t\u0000\u001F\uFFFF\uD834\uDD1E""#;
    let s = Reader::new(esc).string().unwrap();
    assert_eq!(s.chars().collect::<String>(), "\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{ffff}\u{1d11e}");
}

/// Keys and strings chosen to exercise every escaping rule.
const NAMES: [&str; 7] = [
    "plain",
    "quote\"inside",
    "back\\slash",
    "ctl\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}",
    "non-ascii é ☕ 😀",
    "",
    "/slash</script>",
];

fn build(w: &mut Writer<'_>, raw: Str<'_>) {
    w.begin_object();
    for (i, name) in NAMES.iter().enumerate() {
        w.key(name);
        w.str(name);
        w.key("n");
        w.u64(i as u64 * 1_000_000_007);
    }
    w.key("list");
    w.begin_array();
    w.f64(0.0096);
    w.f64(-1.3e-8);
    w.f64(2.5e20);
    w.f64(f64::NAN);
    w.bool(true);
    w.bool(false);
    w.null();
    w.begin_object();
    w.end_object();
    w.begin_array();
    w.end_array();
    w.raw_str(raw);
    w.begin_array();
    w.u64(u64::MAX);
    w.begin_object();
    w.key("x");
    w.begin_array();
    w.end_array();
    w.key("y");
    w.f64(-0.0);
    w.end_object();
    w.end_array();
    w.end_array();
    w.key("tail");
    w.str("end");
    w.end_object();
}

#[test]
fn writer_round_trip() {
    let src = br#""a\u00e9\"\ud83d\ude00""#;
    let raw = Reader::new(src).string().unwrap();
    let mut big = [0u8; 4096];
    let mut w = Writer::new(&mut big);
    build(&mut w, raw);
    let n = w.finish().unwrap();
    let out = &big[..n];
    skip_doc(out).unwrap();
    walk_doc(out).unwrap();

    let mut r = Reader::new(out);
    r.begin_object().unwrap();
    for (i, name) in NAMES.iter().enumerate() {
        let (k, _) = r.next_key().unwrap().unwrap();
        assert!(k.eq_str(name), "{k} vs {name:?}");
        assert_eq!(format!("{k}"), *name);
        assert!(r.string().unwrap().eq_str(name));
        assert!(r.next_key().unwrap().unwrap().0.eq_str("n"));
        assert_eq!(r.u64(), Ok(i as u64 * 1_000_000_007));
    }
    assert!(r.next_key().unwrap().unwrap().0.eq_str("list"));
    r.begin_array().unwrap();
    let mut vals = [0.0; 3];
    for v in &mut vals {
        assert!(r.next_element().unwrap());
        *v = r.f64().unwrap();
    }
    assert_eq!(vals, [0.0096, -1.3e-8, 2.5e20]);
    r.next_element().unwrap();
    assert_eq!(r.peek(), Ok(Kind::Null));
    r.skip_value().unwrap();
    for _ in 0..5 {
        r.next_element().unwrap();
        r.skip_value().unwrap();
    }
    r.next_element().unwrap();
    assert_eq!(r.string().unwrap(), raw);
    r.next_element().unwrap();
    r.skip_value().unwrap();
    assert!(!r.next_element().unwrap());
    assert!(r.next_key().unwrap().unwrap().0.eq_str("tail"));
    r.skip_value().unwrap();
    assert_eq!(r.next_key(), Ok(None));
    r.end().unwrap();

    let text = core::str::from_utf8(out).unwrap();
    assert!(text.contains(r#""ctl\n\r\t\b\f\u0000\u001f"#));
    assert!(text.contains(r#"[0.0096,-1.3e-8,2.5e20,null,true,false,null,{},[],"a\u00e9\"\ud83d\ude00",[18446744073709551615,{"x":[],"y":-0}]]"#));
}

#[test]
fn writer_counts_exactly() {
    let src = br#""\u00e9x""#;
    let raw = Reader::new(src).string().unwrap();
    let mut big = [0u8; 4096];
    let mut w = Writer::new(&mut big);
    build(&mut w, raw);
    let full = w.len();
    assert_eq!(w.finish(), Ok(full));

    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let numbers: Vec<f64> = (0..40).map(|_| f64::from_bits(rng.next())).filter(|x| x.is_finite()).collect();
    let write_numbers = |w: &mut Writer<'_>| {
        w.begin_array();
        for &x in &numbers {
            w.f64(x);
            w.u64(x.to_bits());
        }
        w.end_array();
    };
    let mut nbig = [0u8; 4096];
    let mut w = Writer::new(&mut nbig);
    write_numbers(&mut w);
    let nfull = w.finish().unwrap();
    skip_doc(&nbig[..nfull]).unwrap();

    for size in 0..=full + 2 {
        let mut buf = vec![0u8; size];
        let mut w = Writer::new(&mut buf);
        build(&mut w, raw);
        let res = w.finish();
        if size >= full {
            assert_eq!(res, Ok(full));
            assert_eq!(&buf[..full], &big[..full]);
        } else {
            assert_eq!(res, Err(full));
        }
    }
    for size in 0..=nfull + 2 {
        let mut buf = vec![0u8; size];
        let mut w = Writer::new(&mut buf);
        write_numbers(&mut w);
        assert!(!w.is_empty());
        let expect = if size >= nfull { Ok(nfull) } else { Err(nfull) };
        assert_eq!(w.finish(), expect, "size {size}");
    }
}

fn write_one(x: f64) -> String {
    let mut buf = [0u8; 64];
    let mut w = Writer::new(&mut buf);
    w.f64(x);
    let n = w.finish().unwrap();
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

#[test]
fn f64_round_trip() {
    let mut values = vec![
        1e-300,
        5e-324,
        -5e-324,
        1.7976931348623157e308,
        -1.7976931348623157e308,
        0.1,
        403.97523,
        0.0,
        -0.0,
        1e-5,
        9.999999999999999e-6,
        1e16,
        9999999999999998.0,
        2.2250738585072014e-308,
        123456789.0,
    ];
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    while values.len() < 20_000 {
        let x = f64::from_bits(rng.next());
        if x.is_finite() {
            values.push(x);
        }
    }
    for x in values {
        let text = write_one(x);
        let back: f64 = text.parse().unwrap();
        let mut r = Reader::new(text.as_bytes());
        let strict = r.f64().unwrap_or_else(|e| panic!("{text}: {e}"));
        r.end().unwrap();
        assert_eq!(strict.to_bits(), back.to_bits(), "{text}");
        if x == 0.0 {
            assert_eq!(back, 0.0, "{text}");
        } else {
            assert_eq!(back.to_bits(), x.to_bits(), "{x:e} written as {text}");
        }
    }
    assert_eq!(write_one(1.3e-8), "1.3e-8");
    assert_eq!(write_one(2.5e20), "2.5e20");
    assert_eq!(write_one(0.0096), "0.0096");
    assert_eq!(write_one(f64::INFINITY), "null");
    assert_eq!(write_one(f64::NAN), "null");
}

#[test]
fn writer_random_strings_round_trip() {
    let mut rng = XorShift(7);
    let pool = ['a', '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', 'é', '☕', '😀', '/', ' ', '\u{2028}'];
    for _ in 0..2000 {
        let len = rng.below(12);
        // Keys are `'static` (an overflow error names its key): 2 000 small leaks.
        let s: &'static str = String::leak((0..len).map(|_| pool[rng.below(pool.len())]).collect());
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        w.begin_object();
        w.key(s);
        w.begin_array();
        w.str(s);
        w.str(s);
        w.end_array();
        w.end_object();
        let n = w.finish().unwrap();
        let mut r = Reader::new(&buf[..n]);
        r.begin_object().unwrap();
        let (k, _) = r.next_key().unwrap().unwrap();
        assert!(k.eq_str(s));
        assert_eq!(k.decoded_len(), s.len());
        r.begin_array().unwrap();
        r.next_element().unwrap();
        let v = r.string().unwrap();
        assert_eq!(v, k);
        r.next_element().unwrap();
        r.skip_value().unwrap();
        assert!(!r.next_element().unwrap());
        assert_eq!(r.next_key(), Ok(None));
        r.end().unwrap();
    }
}

#[test]
fn mutations_never_panic() {
    let mut rng = XorShift(0xDEAD_BEEF_CAFE_F00D);
    let interesting =
        b"{}[]\",:\\u0123456789abcdefABCDEF.eE+-tfn \t\n\r\x00\x1f\x7f\x80\xbf\xc0\xe2\xed\xf0\xff'x";
    let mut errors = 0usize;
    for _ in 0..100_000 {
        let mut doc = DOCS[rng.below(DOCS.len())].as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(doc.len() + 1);
            let byte =
                if rng.below(4) == 0 { rng.next() as u8 } else { interesting[rng.below(interesting.len())] };
            match rng.below(4) {
                0 if at < doc.len() => doc[at] = byte,
                1 => doc.insert(at, byte),
                2 if at < doc.len() => {
                    doc.remove(at);
                }
                _ => doc.truncate(at),
            }
        }
        for res in [skip_doc(&doc), walk_doc(&doc), object_fields(&doc).map(|_| ())] {
            if let Err(e) = res {
                assert!(e.offset <= doc.len());
                errors += 1;
            }
        }
    }
    assert!(errors > 100_000);
}
