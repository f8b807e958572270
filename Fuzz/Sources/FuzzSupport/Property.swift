// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#endif

/// What a fuzz target checks of every input, beyond not crashing.
///
/// A property that does not hold stops the process with a message on standard error and
/// `abort()`, which libFuzzer reports as a crash, saving the input that broke it.
public enum Property {
    /// Stops the process unless `holds`; `statement` says what should have held.
    public static func require(_ holds: Bool, _ statement: @autoclosure () -> String) {
        guard !holds else { return }
        let message = Array("property failed: \(statement())\n".utf8)
        _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        abort()
    }
}
