// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerHTTP

/// `tipledger health`: asks a running `serve` for `/healthz` (the container's HEALTHCHECK).
struct HealthCommand: Command {
    static let name = "health"
    static let summary = "check that a running 'serve' answers /healthz"
    static let usage = """
        Usage: tipledger health [--listen HOST:PORT]

        Asks the service at HOST:PORT (default: TIPLEDGER_LISTEN, else 127.0.0.1:8080; 0.0.0.0
        is asked on 127.0.0.1) for GET /healthz. Exit status 0 when it answers 200, 1 otherwise.

        """

    let address: ListenAddress

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        _ = try globals.format(allowing: [.text], command: Self.name)
        address = try ServeCommand.listenAddress(&scanner, globals: globals, command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        guard let status = HealthProbe.status(of: address) else {
            context.terminal.line("unhealthy: nothing answered at \(address)")
            return .rejected
        }
        context.terminal.line(status == 200 ? "healthy" : "unhealthy: /healthz answered \(status)")
        return status == 200 ? .success : .rejected
    }
}
