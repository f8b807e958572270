// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Standard output and error of a command, buffered, written with `write(2)`.
///
/// Glibc's `stdout`/`stderr` globals are rejected by strict concurrency, and `FileHandle` costs
/// more per line; this writes whole buffers to the file descriptors instead. Tests substitute
/// in-memory sinks.
public final class Terminal: Sendable {
    public enum Sink: Sendable {
        case fileDescriptor(Int32)
        case memory
    }

    private struct Buffers {
        var out: [UInt8] = []
        var err: [UInt8] = []
        var capturedOut: [UInt8] = []
        var capturedErr: [UInt8] = []
        /// The `errno` of the first failed write to standard output.
        var outputFailure: Int32? = nil
    }

    private let outSink: Sink
    private let errSink: Sink
    private let buffers = Mutex(Buffers())
    /// Whether standard error is a terminal (progress is shown only then).
    public let errorIsTerminal: Bool
    /// Whether standard output is a terminal (a page of HTML is not written to one).
    public let outputIsTerminal: Bool

    public init(out: Sink, err: Sink) {
        self.outSink = out
        self.errSink = err
        if case .fileDescriptor(let fd) = err { errorIsTerminal = isatty(fd) == 1 } else { errorIsTerminal = false }
        if case .fileDescriptor(let fd) = out { outputIsTerminal = isatty(fd) == 1 } else { outputIsTerminal = false }
    }

    /// The process's own standard output and error.
    public static func standard() -> Terminal { Terminal(out: .fileDescriptor(1), err: .fileDescriptor(2)) }

    /// A terminal that keeps everything in memory, for tests.
    public static func capturing() -> Terminal { Terminal(out: .memory, err: .memory) }

    /// Queues `text` for standard output; it is written when the buffer is large or on `flush`.
    public func write(_ text: String) {
        append(text.utf8)
    }

    /// Queues `bytes` for standard output.
    public func write(bytes: [UInt8]) {
        append(bytes)
    }

    private func append(_ bytes: some Sequence<UInt8>) {
        let full = buffers.withLock { buffers -> [UInt8]? in
            buffers.out.append(contentsOf: bytes)
            guard buffers.out.count >= 1 << 16 else { return nil }
            defer { buffers.out.removeAll(keepingCapacity: true) }
            return buffers.out
        }
        if let full { emit(full, to: outSink, error: false) }
    }

    /// Writes `text` plus a newline to standard output (buffered). `text` is one line whatever
    /// it quotes: a control character in it is escaped (`PrintableText`), so it can neither
    /// end the line nor drive the terminal.
    public func line(_ text: String) { write(PrintableText.escaped(text) + "\n") }

    /// Writes `text` plus a newline to standard error at once (after flushing standard output,
    /// so the two stay in order on a shared terminal); escaped as by `line`.
    public func errorLine(_ text: String) {
        flush()
        emit(Array((PrintableText.escaped(text) + "\n").utf8), to: errSink, error: true)
    }

    /// Writes `text` to standard error without a newline (for progress lines ending in `\r`).
    public func errorText(_ text: String) {
        emit(Array(text.utf8), to: errSink, error: true)
    }

    /// Writes everything queued for standard output.
    public func flush() {
        let pending = buffers.withLock { buffers -> [UInt8] in
            defer { buffers.out.removeAll(keepingCapacity: true) }
            return buffers.out
        }
        if !pending.isEmpty { emit(pending, to: outSink, error: false) }
    }

    /// The `errno` of the first write to standard output that failed (a full disk, a closed
    /// descriptor, a reader that went away), once everything queued was flushed; nil when every
    /// write succeeded. Output after a failure is dropped.
    public var outputFailure: Int32? {
        flush()
        return buffers.withLock { $0.outputFailure }
    }

    /// Everything written to standard output of a capturing terminal.
    public var capturedOutput: String {
        flush()
        return buffers.withLock { String(decoding: $0.capturedOut, as: UTF8.self) }
    }

    /// Everything written to standard error of a capturing terminal.
    public var capturedError: String {
        buffers.withLock { String(decoding: $0.capturedErr, as: UTF8.self) }
    }

    private func emit(_ bytes: [UInt8], to sink: Sink, error: Bool) {
        switch sink {
        case .memory:
            buffers.withLock {
                if error { $0.capturedErr.append(contentsOf: bytes) } else { $0.capturedOut.append(contentsOf: bytes) }
            }
        case .fileDescriptor(let fd):
            if !error, buffers.withLock({ $0.outputFailure != nil }) { return }
            let failure = bytes.withUnsafeBytes { Posix.writeAll($0, to: fd) }
            // A failed write to standard error has nowhere to be told.
            if !error, let failure { buffers.withLock { $0.outputFailure = $0.outputFailure ?? failure } }
        }
    }
}
