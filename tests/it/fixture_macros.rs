// The macros that make one test per fixture, shared by this test binary
// (`include!`d by common.rs) and the crate's own tests (src/tests/mod.rs).

/// One `#[test]` per fixture, so that a failure names the fixture (the
/// pattern of inferno's tests/common/collapse.rs).
///
/// `fixture_tests!(check: a, b)` expands to `mod check` holding the tests
/// `a` and `b`, which call `check("a")` and `check("b")`; the tests are
/// `module::check::a` and `module::check::b`. With arguments,
/// `fixture_tests!(check: a("x", 1))` calls `check("x", 1)`. Attributes
/// before `check` go on every test: `fixture_tests!(#[ignore = "needs X"]
/// check: a, b)`.
macro_rules! fixture_tests {
    // The attributes travel as one bracketed token tree, which (unlike a
    // repetition) may be used inside the repetition over the names.
    (@test [$($attr:tt)*] $check:ident, $name:ident) => {
        $($attr)*
        fn $name() {
            super::$check(stringify!($name))
        }
    };
    (@test [$($attr:tt)*] $check:ident, $name:ident ($($arg:expr),*)) => {
        $($attr)*
        fn $name() {
            super::$check($($arg),*)
        }
    };
    (@mod $attrs:tt $check:ident: $($name:ident $(($($arg:expr),* $(,)?))?),+ $(,)?) => {
        mod $check {
            $(
                fixture_tests!(@test $attrs $check, $name $(($($arg),*))?);
            )+
        }
    };
    ($(#[$attr:meta])* $check:ident: $($rest:tt)+) => {
        fixture_tests!(@mod [#[test] $(#[$attr])*] $check: $($rest)+);
    };
}

/// One `#[test]` per fixture database (common.rs' `DATABASES`, the same
/// names in the same order): `check(name)`.
macro_rules! database_tests {
    ($check:ident) => {
        fixture_tests!($check: small4, nfiles2, single, flush, asym4, host_nid, amrlevel8);
    };
}

