// SPDX-License-Identifier: GPL-3.0-or-later

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
