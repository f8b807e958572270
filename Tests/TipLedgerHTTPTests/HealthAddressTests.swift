// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// `tipledger health` run with the address `serve` listens on in the container, 0.0.0.0 (every
/// interface), asks the loopback interface, 127.0.0.1: the request it sends names that host.
@Suite struct HealthAddressTests {
    /// Where `health` takes the address from.
    enum Source: String, CaseIterable, Sendable {
        case flag, environment
    }

    @Test(arguments: Source.allCases)
    func healthAsksTheLoopbackAddressForEveryInterface(_ source: Source) throws {
        let live = try LiveTestServer()
        defer { live.stop() }
        let address = "0.0.0.0:\(live.port)"

        let result =
            switch source {
            case .flag:
                try TipledgerProcess.run(["health", "--listen", address], environment: LiveService.environment())
            case .environment:
                try TipledgerProcess.run(
                    ["health"], environment: LiveService.environment(["TIPLEDGER_LISTEN": address]))
            }

        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "healthy\n")
        let requests = live.requests
        #expect(requests.map(\.path) == ["/healthz"])
        #expect(requests.first?.headers["Host"] == "127.0.0.1:\(live.port)")
    }
}
