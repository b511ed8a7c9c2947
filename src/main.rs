//! The `profparse` binary: the command line of the library (`profparse::cli`).

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    profparse::cli::main()
}
