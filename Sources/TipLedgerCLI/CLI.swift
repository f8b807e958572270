// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
public import TipLedgerCore
internal import TipLedgerCrypto
internal import TipLedgerStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// The `tipledger` command line: picks the command, parses, runs, and maps every error to an
/// exit status and an `error: ...` line in this one place.
public enum CLI {
    /// The version `--version` prints.
    public static let version = "0.1.0"

    static var commands: [any Command.Type] {
        [
            VerifyCommand.self, FinishCommand.self, PendingCommand.self, RestoreCommand.self, ReportCommand.self,
            MigrateCommand.self, ReverifyCommand.self, BackupCommand.self, ServeCommand.self, HealthCommand.self,
            SyncCommand.self, LookupCommand.self, ConsumptionCommand.self, NotifyTestCommand.self, TestkitCommand.self,
        ]
    }

    /// Sets up the libraries the process shares between threads; call once, first.
    public static func prepareLibraries() {
        OpenSSLLibrary.initialize()
    }

    /// Runs `tipledger` with `arguments` (without the program name) and returns the exit status.
    public static func main(
        _ arguments: [String], environment: [String: String], terminal: Terminal = .standard(),
        clock: WallClock = .system, inputDescriptor: Int32 = 0
    ) -> Int32 {
        var status: ExitStatus
        do {
            status = try run(
                arguments, environment: environment, terminal: terminal, clock: clock,
                inputDescriptor: inputDescriptor)
        } catch {
            let failure = failure(error)
            report(failure, on: terminal)
            status = failure.status
        }
        // Output that never arrived is a failed command, whatever the command itself did: a
        // report written to a full disk must not look like a report.
        if let failure = terminal.outputFailure {
            report(
                CLIError(.ioError, "cannot write standard output: \(Posix.message(failure))"), on: terminal)
            if status == .success || status == .rejected { status = .ioError }
        }
        return status.rawValue
    }

    /// What a command's `error` tells the user, and its exit status: a store error is the
    /// ledger failing (74), unless tipledger broke a rule of its own; that, and an error of no
    /// kind the CLI knows, is a bug of its own (70).
    static func failure(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError: error
        case let error as StoreError where error.isBrokenInvariant:
            CLIError(.internalError, "internal error: \(error.description)")
        // Damage found past the opening checks: said as such, without the statement it broke.
        case let error as StoreError where error.isDamage && error.sql != nil:
            CLIError(
                .ioError, "the ledger is damaged: \(error.message) (SQLite code \(error.code))",
                hint: StoreError.damageHint)
        case let error as StoreError: CLIError(.ioError, error.description, hint: error.hint)
        case let error as AppStoreAPIError: error.cliError
        default: CLIError(.internalError, "internal error: \(error)")
        }
    }

    private static func report(_ error: CLIError, on terminal: Terminal) {
        terminal.errorLine("error: \(error.message)")
        if let hint = error.hint { terminal.errorLine("hint: \(hint)") }
    }

    /// The options that may come before the command and take a value, the global ones and the
    /// App Store Server API's (`tipledger --api-key key.p8 sync`): their values are never read
    /// as the command.
    static let valueFlags = GlobalOption.valueFlags.union(APIOptions.valueOptions)

    private static func run(
        _ arguments: [String], environment: [String: String], terminal: Terminal, clock: WallClock,
        inputDescriptor: Int32
    ) throws -> ExitStatus {
        var scanner = ArgumentScanner(arguments)
        let wantsHelp = scanner.flag("--help", "-h")
        if scanner.flag("--version") {
            terminal.line("tipledger \(version)")
            return .success
        }
        var name = scanner.nextPositional(skippingValuesOf: valueFlags)
        if name == "help" {
            name = scanner.nextPositional(skippingValuesOf: valueFlags)
            guard let name else {
                terminal.write(generalUsage)
                return .success
            }
            guard let command = command(named: name) else { throw unknownCommand(name) }
            terminal.write(helpText(for: command))
            return .success
        }
        guard let name else {
            if wantsHelp {
                terminal.write(generalUsage)
                return .success
            }
            // What is left on the command line may say why no command was found: an option
            // without its value, or one mistyped. (The environment's settings are not checked.)
            _ = try GlobalOptions(scanner: &scanner, environment: [:])
            try scanner.finish()
            throw CLIError(.usage, "no command given", hint: "run 'tipledger --help' for the list of commands")
        }
        guard let commandType = command(named: name) else { throw unknownCommand(name) }
        scanner.command = name
        if wantsHelp {
            terminal.write(helpText(for: commandType))
            return .success
        }
        let globals = try GlobalOptions(scanner: &scanner, environment: environment)
        let command = try commandType.init(parsing: &scanner, globals: globals)
        try scanner.finish()
        let context = CommandContext(
            terminal: terminal, environment: environment, globals: globals, clock: clock,
            inputDescriptor: inputDescriptor)
        return try command.run(context)
    }

    private static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }

    private static func unknownCommand(_ name: String) -> CLIError {
        let list = "run 'tipledger --help' for the list of commands"
        var closest: (name: String, distance: Int)? = nil
        for command in commands {
            let distance = editDistance(command.name, name)
            if distance < closest?.distance ?? 3 { closest = (command.name, distance) }
        }
        guard let closest = closest?.name else {
            return CLIError(.usage, "unknown command '\(name)'", hint: list)
        }
        return CLIError(.usage, "unknown command '\(name)'", hint: "did you mean '\(closest)'? \(list)")
    }

    /// The Levenshtein distance between two short words: single-character insertions,
    /// deletions and substitutions that turn one into the other.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    static func helpText(for command: any Command.Type) -> String {
        command.usage + "\n" + GlobalOptions.usage + "\n"
    }

    static var generalUsage: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map {
            "  \($0.name)" + String(repeating: " ", count: width - $0.name.count + 3) + $0.summary
        }
        return """
            tipledger \(version): a self-hosted ledger and verifier for App Store in-app purchases

            Usage: tipledger [global options] <command> [options]

            Commands:
            \(list.joined(separator: "\n"))

            \(GlobalOptions.usage)

            Run 'tipledger <command> --help' for a command's options.
            Exit status: 0 success, 1 an input was rejected, 64 usage or configuration error
            (a malformed --catalog file too), 69 the App Store Server API failed, 70 internal
            error, 74 database or file error.

            """
    }
}
