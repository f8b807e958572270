// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// The App Store Server API settings of the commands that call it (`sync`, `lookup`,
/// `consumption`, `notify-test`, `serve`): each a flag or its `TIPLEDGER_*` variable, a flag
/// winning.
///
/// The flags are taken when the command is parsed; the variables are read, and everything is
/// checked, when the command connects (`connect`), before any request: a missing or unusable
/// setting is a usage error (exit 64) with a hint.
struct APIOptions {
    /// One setting: its flag and variable.
    enum Setting: String, CaseIterable {
        case keyFile = "--api-key"
        case keyId = "--api-key-id"
        case issuerId = "--api-issuer"
        case url = "--api-url"
        case certificateAuthority = "--api-ca"

        var variable: String {
            switch self {
            case .keyFile: "TIPLEDGER_API_KEY_FILE"
            case .keyId: "TIPLEDGER_API_KEY_ID"
            case .issuerId: "TIPLEDGER_API_ISSUER_ID"
            case .url: "TIPLEDGER_API_URL"
            case .certificateAuthority: "TIPLEDGER_API_CA"
            }
        }
    }

    /// The options that take a value, so that a value given before the command is not read as
    /// the command (`tipledger --api-key key.p8 sync`).
    static let valueOptions = Set(Setting.allCases.map(\.rawValue))

    static let usage = """
        App Store Server API (each also read from its variable; a flag wins):
          --api-key FILE        the In-App Purchase key (.p8) from App Store Connect
                                [TIPLEDGER_API_KEY_FILE]
          --api-key-id ID       the key's id [TIPLEDGER_API_KEY_ID]
          --api-issuer UUID     the issuer id [TIPLEDGER_API_ISSUER_ID]
          --api-url URL         a test server instead of Apple; then --environment names
                                the one environment it stands for [TIPLEDGER_API_URL]
          --api-ca FILE         also trust this CA (PEM) for the API [TIPLEDGER_API_CA]
        The bundle id in each request is --bundle-id's (one); Production and Sandbox
        are reached as --environment lists them.
        """

    private var flags: [Setting: String] = [:]

    init(parsing scanner: inout ArgumentScanner) throws {
        for setting in Setting.allCases {
            switch setting {
            case .keyFile, .certificateAuthority: flags[setting] = try scanner.path(setting.rawValue, to: .file)
            case .keyId, .issuerId, .url: flags[setting] = try scanner.value(setting.rawValue)
            }
        }
    }

    /// The setting's flag, else its variable unless unset or empty, with the name it came from.
    func value(_ setting: Setting, environment: [String: String]) -> (value: String, source: String)? {
        if let flag = flags[setting] { return (flag, setting.rawValue) }
        guard let variable = environment[setting.variable], !variable.isEmpty else { return nil }
        return (variable, setting.variable)
    }

    /// Whether any credential is given (key, key id or issuer): `serve` then calls the API,
    /// and every setting must be right.
    func credentialsGiven(environment: [String: String]) -> Bool {
        [.keyFile, .keyId, .issuerId].contains { value($0, environment: environment) != nil }
    }

    /// Reads the key, checks every setting and makes a client for each environment the
    /// commands reach; sends nothing.
    ///
    /// - Parameter observer: told of every exchange with Apple (see `APIExchange`).
    func connect(
        _ context: CommandContext, command: String, observer: @escaping @Sendable (APIExchange) -> Void
    ) throws -> AppStoreConnection {
        let environment = context.environment
        let globals = context.globals
        _ = try globals.verificationPolicy(command: command)
        guard globals.bundleIds.count == 1, let bundleId = globals.bundleIds.first else {
            throw CLIError(
                .usage,
                "the App Store Server API is called for one app, and \(globals.bundleIdSource) lists "
                    + "\(globals.bundleIds.count) bundle ids",
                hint: "give the one bundle id of the app the API key is for")
        }
        let url = value(.url, environment: environment)
        let environments = try Self.environments(globals, url: url?.source)
        let keyFile = value(.keyFile, environment: environment)?.value
        let credentials = try AppStoreAPICredentials(
            keyFile: keyFile, keyId: value(.keyId, environment: environment)?.value,
            issuerId: value(.issuerId, environment: environment)?.value, bundleId: bundleId)
        if let keyFile { Self.warnIfShared(keyFile, terminal: context.terminal) }
        let clock = APIClock(wallClock: context.clock) { APIClock.system.sleep(for: $0) }
        var clients: [(AppStoreEnvironment, AppStoreServerAPIClient)] = []
        for apiEnvironment in environments {
            var configuration = AppStoreAPIConfiguration(environment: apiEnvironment, tipledgerVersion: CLI.version)
            configuration.baseURL = url?.value
            configuration.extraCertificateAuthorityFile = value(.certificateAuthority, environment: environment)?.value
            clients.append(
                (
                    apiEnvironment,
                    try AppStoreServerAPIClient(
                        credentials: credentials, configuration: configuration, clock: clock, observer: observer)
                ))
        }
        return AppStoreConnection(clients: clients)
    }

    /// The environments the API is called for: those of `--environment` that have an API
    /// (Production and Sandbox), Production first. With a test server's URL (from `urlSource`),
    /// exactly one, named.
    private static func environments(_ globals: GlobalOptions, url urlSource: String?) throws
        -> [AppStoreEnvironment]
    {
        let reachable = globals.environments.filter { $0 == .production || $0 == .sandbox }.sorted()
        if let urlSource {
            guard globals.environmentsWereGiven, globals.environments.count == 1, reachable.count == 1 else {
                throw CLIError(
                    .usage, "with \(urlSource), name the one environment the test server stands for",
                    hint: "add --environment Sandbox (or Production), or set TIPLEDGER_ENVIRONMENT to one of them")
            }
            return reachable
        }
        guard !reachable.isEmpty else {
            throw CLIError(
                .usage, "the App Store Server API serves Production and Sandbox, and --environment names neither",
                hint: "add Production or Sandbox to --environment (or TIPLEDGER_ENVIRONMENT)")
        }
        return reachable
    }

    /// Says so when other users may read the key file, as `serve` does for its token file.
    private static func warnIfShared(_ keyFile: String, terminal: Terminal) {
        var status = stat()
        if stat(keyFile, &status) == 0, status.st_mode & 0o044 != 0 {
            terminal.errorLine(
                "hint: other users may read the API key file \(keyFile); make it private: chmod 600 '\(keyFile)'")
        }
    }
}
