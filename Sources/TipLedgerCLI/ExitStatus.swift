// SPDX-License-Identifier: GPL-3.0-or-later

/// The process exit statuses of docs/cli.md (the BSD `sysexits.h` values where one fits).
public enum ExitStatus: Int32, Sendable {
    /// Everything worked.
    case success = 0
    /// At least one input was rejected; the others were processed.
    case rejected = 1
    /// Bad usage or configuration (`EX_USAGE`).
    case usage = 64
    /// The App Store Server API could not be reached, or failed to answer (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// An internal error (`EX_SOFTWARE`).
    case internalError = 70
    /// The database or a file could not be read or written (`EX_IOERR`).
    case ioError = 74
}
