// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// A `tipledger` subcommand: parsing (`init`) is separate from running (`run`), and each
/// command owns its usage text.
protocol Command {
    /// The word that selects the command.
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text, without the global options.
    static var usage: String { get }

    /// Takes the command's options from `scanner`; unknown ones are reported afterwards.
    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws

    /// Runs the command and returns the exit status; throws `CLIError` (or a store error) to
    /// end with an error message.
    func run(_ context: CommandContext) throws -> ExitStatus
}

/// What a running command may use from its surroundings.
struct CommandContext {
    let terminal: Terminal
    let environment: [String: String]
    let globals: GlobalOptions
    let clock: WallClock
    /// Standard input's file descriptor.
    let inputDescriptor: Int32
}
