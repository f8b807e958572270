// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerHTTP

extension ServeCommand {
    /// How `serve` uses the App Store Server API: the connection, how often it sweeps (nil:
    /// never), and how it answers consumption requests.
    struct AppStoreSetup {
        let connection: AppStoreConnection
        let interval: Duration?
        let policy: ConsumptionPolicy

        /// The line `serve` starts with.
        var summary: String {
            let sweeps = interval.map { "sweeps Apple's notification history every \(ServeCommand.text($0))" }
            let answers =
                policy.customersConsented
                ? "answers consumption requests" : "does not answer consumption requests (no --customers-consented)"
            return "App Store Server API (\(connection.environmentNames)): "
                + (sweeps.map { "\($0); " } ?? "no sweeps; ") + answers
        }
    }

    /// The App Store Server API setup, or nil when no credentials are configured; every setting
    /// is checked now, before anything is served. Exchanges with Apple are counted in `metrics`.
    func appStoreSetup(_ context: CommandContext, metrics: ServiceMetrics) throws -> AppStoreSetup? {
        let policy = try consumption.resolve(environment: context.environment, command: Self.name)
        let interval = try Self.syncInterval(
            syncInterval.map { ($0, "--sync-interval") }
                ?? context.environment["TIPLEDGER_SYNC_INTERVAL"].flatMap {
                    $0.isEmpty ? nil : ($0, "TIPLEDGER_SYNC_INTERVAL")
                })
        guard api.credentialsGiven(environment: context.environment) else { return nil }
        let notes = AppStoreConnection.notes(on: context.terminal)
        let connection = try api.connect(context, command: Self.name) { exchange in
            metrics.countAPICall(endpoint: exchange.endpoint, outcome: exchange.outcome)
            notes(exchange)
        }
        return AppStoreSetup(connection: connection, interval: interval, policy: policy)
    }

    /// The sweep interval `given` (with the name it came from) says: `30s`, `15m`, `1h` or
    /// bare seconds; nil for `0` (never). An hour when not given.
    static func syncInterval(_ given: (text: String, source: String)?) throws -> Duration? {
        guard let (text, source) = given else { return .seconds(3600) }
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        let unit = text.last.flatMap { units[$0] }
        // A count too large for its unit overflows rather than passing the bound.
        guard let count = Int64(unit == nil ? text : String(text.dropLast())),
            case let (seconds, overflow) = count.multipliedReportingOverflow(by: unit ?? 1), !overflow,
            (0...604_800).contains(seconds)
        else {
            throw CLIError.usage(
                "\(source) takes a time such as 30s, 15m or 1h (0 for never), not '\(text)'", command: name)
        }
        return seconds == 0 ? nil : .seconds(seconds)
    }

    /// `1h`, `15m`, `30s`: a whole interval in its largest unit.
    static func text(_ interval: Duration) -> String {
        let seconds = interval.components.seconds
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
