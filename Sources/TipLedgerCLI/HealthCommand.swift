// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerHTTP

/// `tipledger health`: asks a running `serve` for `/healthz` (the container's HEALTHCHECK).
struct HealthCommand: Command {
    static let name = "health"
    static let summary = "check that a running 'serve' answers /healthz"
    static let usage = """
        Usage: tipledger health [--listen HOST:PORT]

        Asks the service at HOST:PORT (default: TIPLEDGER_LISTEN, else 127.0.0.1:8080; 0.0.0.0
        is asked on 127.0.0.1) for GET /healthz. Exit status 0 when it answers 200, 1 otherwise
        (nothing answers, or it answers why the ledger cannot be read or written).

        """

    let address: ListenAddress

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        _ = try globals.format(allowing: [.text], command: Self.name)
        address = try ServeCommand.listenAddress(&scanner, globals: globals, command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        guard let (status, body) = HealthProbe.answer(of: address) else {
            context.terminal.line("unhealthy: nothing answered at \(address)")
            return .rejected
        }
        guard status != 200 else {
            context.terminal.line("healthy")
            return .success
        }
        // The service says why in words (`/healthz`'s message). Whatever answers at the address
        // wrote it: `line` escapes what could drive the terminal, and a few lines' worth is kept.
        let message = (try? JSONParser.parse(body))?.objectValue?["message"]?.stringValue
        context.terminal.line("unhealthy: /healthz answered \(status)" + (message.map { ": \($0.prefix(300))" } ?? ""))
        return .rejected
    }
}
