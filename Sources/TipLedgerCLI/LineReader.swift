// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// One line of input, numbered from 1.
struct InputLine: Sendable {
    let number: Int
    let content: Content
    /// The line's length in bytes, even when it was too long to keep.
    let byteCount: Int

    /// What the reader made of a line's bytes.
    enum Content: Sendable {
        /// The text without its line ending.
        case text(String)
        /// Longer than the reader's limit: its bytes were skipped, never held in memory.
        case tooLong
        /// Not UTF-8. Decoded with replacement characters, it could read as a line that was
        /// never sent (a webhook body whose odd bytes sit in a member nobody reads), where
        /// `serve` refuses the same bytes: so it is refused here too.
        case notUTF8
    }

    /// The line's text; nil when it was too long or not UTF-8.
    var text: String? {
        if case .text(let text) = content { text } else { nil }
    }

    /// Whether the line holds nothing but the whitespace allowed around a token: such lines are
    /// skipped, not answered.
    var isBlank: Bool {
        text?.utf8.allSatisfy(JSONParser.isWhitespace) ?? false
    }
}

/// Reads lines from a file descriptor in fixed-size chunks, keeping at most one line (bounded
/// by `maximumLineBytes`) in memory however long the input is.
struct LineReader {
    let fileDescriptor: Int32
    let maximumLineBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var lineNumber = 0
    /// Set when a read failed with an error other than end of input.
    private(set) var readError: Int32?

    /// A CLI error (status 74) when reading standard input ended with `readError`.
    func checkStandardInputRead() throws {
        guard let readError else { return }
        throw CLIError(.ioError, "reading standard input failed: \(Posix.message(readError))")
    }

    init(fileDescriptor: Int32, maximumLineBytes: Int) {
        self.fileDescriptor = fileDescriptor
        self.maximumLineBytes = maximumLineBytes
        buffer.reserveCapacity(1 << 17)
    }

    /// The next line, or nil at the end of input.
    mutating func next() -> InputLine? {
        var skipped = 0  // bytes of an over-long line already thrown away
        while true {
            if let newline = Self.newline(in: buffer, from: start) {
                lineNumber += 1
                if lineNumber == 1 && skipped == 0 { skipByteOrderMark(before: newline) }
                let length = newline - start
                defer { start = newline + 1 }
                if skipped > 0 || length > maximumLineBytes {
                    return InputLine(number: lineNumber, content: .tooLong, byteCount: skipped + length)
                }
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                return InputLine(number: lineNumber, content: Self.content(buffer[start..<end]), byteCount: length)
            }
            if atEnd {
                guard start < buffer.count || skipped > 0 else { return nil }
                lineNumber += 1
                if lineNumber == 1 && skipped == 0 { skipByteOrderMark(before: buffer.count) }
                let length = buffer.count - start
                defer { start = buffer.count }
                if skipped > 0 || length > maximumLineBytes {
                    return InputLine(number: lineNumber, content: .tooLong, byteCount: skipped + length)
                }
                return InputLine(number: lineNumber, content: Self.content(buffer[start...]), byteCount: length)
            }
            // No full line buffered: drop what was consumed, and what an over-long line has
            // already used, then read more.
            if buffer.count - start > maximumLineBytes {
                skipped += buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                start = 0
            } else {
                dropConsumed()
            }
            fill()
        }
    }

    /// The text of a line's bytes, when they are UTF-8.
    private static func content(_ bytes: ArraySlice<UInt8>) -> InputLine.Content {
        String(validating: bytes, as: UTF8.self).map { .text($0) } ?? .notUTF8
    }

    /// Skips the UTF-8 byte order mark an editor may put at the start of a file, when the first
    /// line (ending at `end`) starts with one: it belongs to the file, not to the line. One
    /// anywhere else stays in its line.
    private mutating func skipByteOrderMark(before end: Int) {
        let mark: [UInt8] = [0xef, 0xbb, 0xbf]
        if end - start >= mark.count && buffer[start..<(start + mark.count)].elementsEqual(mark) {
            start += mark.count
        }
    }

    /// Whether the input has ended and every line of it was returned.
    var isFinished: Bool { atEnd && start >= buffer.count }

    /// Whether `next()` would wait for input longer than `patience` (a producer that pauses, a
    /// terminal): no whole line is buffered, the input has not ended, and no more arrives
    /// within `patience`. What is ready meanwhile is read, so a line that came in part (a
    /// long line through a pipe) counts as not there yet.
    /// `patience` is asked for only when no line is buffered (the clock stays off the common path).
    mutating func wouldWait(patience: @autoclosure () -> Duration = .zero) -> Bool {
        var deadline: ContinuousClock.Instant? = nil
        // An over-long line is left to `next()`, which skips it.
        while !atEnd && Self.newline(in: buffer, from: start) == nil && buffer.count - start <= maximumLineBytes {
            let waitUntil = deadline ?? ContinuousClock.now.advanced(by: patience())
            deadline = waitUntil
            var ready = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let remaining = max(.zero, ContinuousClock.now.duration(to: waitUntil))
            let status = poll(&ready, 1, Int32((remaining / .milliseconds(1)).rounded(.up)))
            if status < 0 && errno == EINTR { continue }
            if status == 0 { return true }
            guard status > 0 else { return false }
            // Something to read, or an end or error that reading reports: no wait either way.
            dropConsumed()
            fill()
        }
        return false
    }

    /// Drops the lines already returned from the front of the buffer.
    private mutating func dropConsumed() {
        guard start > 0 else { return }
        buffer.removeSubrange(0..<start)
        start = 0
    }

    /// The index of the first line feed at or after `start`, found with `memchr`.
    private static func newline(in buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                let found = memchr(base + start, 0x0a, bytes.count - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Room for one read.
    private static let zeros = [UInt8](repeating: 0, count: 1 << 16)

    private mutating func fill() {
        let chunk = Self.zeros.count
        let oldCount = buffer.count
        // Appending an array is one copy, where a `repeatElement` is copied byte by byte.
        buffer.append(contentsOf: Self.zeros)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                read(fileDescriptor, bytes.baseAddress! + oldCount, chunk)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if count < 0 { readError = errno }
                atEnd = true
                buffer.removeSubrange(oldCount...)
            } else {
                buffer.removeSubrange((oldCount + count)...)
            }
            return
        }
    }
}
