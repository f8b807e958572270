// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#endif

/// The few system calls the CLI makes itself, with their errors in words.
enum Posix {
    /// Writes all of `bytes` to `descriptor`, again after an interruption; the `errno` of the
    /// write that failed, or nil when all were written.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written < 0 { return errno }
            // Nothing written for a non-empty write: stop rather than try for ever.
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }

    /// The system's words for the `errno` value `code` ("No space left on device").
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
