// SPDX-License-Identifier: GPL-3.0-or-later

/// The process exit statuses of SPEC section 5 (the BSD `sysexits.h` values where one fits).
public enum ExitStatus: Int32, Sendable {
    /// Everything worked.
    case success = 0
    /// At least one input was rejected; the others were processed.
    case rejected = 1
    /// Bad usage or configuration (`EX_USAGE`).
    case usage = 64
    /// An internal error (`EX_SOFTWARE`).
    case internalError = 70
    /// The database or a file could not be read or written (`EX_IOERR`).
    case ioError = 74
}

/// An error that ends a command: what to print and the status to exit with.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public let status: ExitStatus
    public let message: String
    /// A suggestion printed as `hint: ...` after the error line.
    public let hint: String?

    public init(_ status: ExitStatus, _ message: String, hint: String? = nil) {
        self.status = status
        self.message = message
        self.hint = hint
    }

    public var description: String { message }

    static func usage(_ message: String, command: String? = nil) -> CLIError {
        CLIError(.usage, message, hint: "run 'tipledger \(command.map { "\($0) " } ?? "")--help' for usage")
    }
}
