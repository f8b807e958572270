// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation

/// The sanitizer settings of the test process, for the programs a test starts.
///
/// Under `make sanitize` the `tipledger` a test runs is built with the same sanitizer as the
/// tests: it must read the same suppressions and options, and, under ThreadSanitizer, preload
/// the same annotations (scripts/sanitize). Children otherwise get an environment of the test's
/// choosing, never the shell's.
public enum SanitizerEnvironment {
    /// The variables that configure the sanitizer runtimes, those of them this process has.
    public static var inherited: [String: String] {
        let names = ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LD_PRELOAD"]
        return ProcessInfo.processInfo.environment.filter { names.contains($0.key) }
    }
}
