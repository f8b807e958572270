// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore
internal import TipLedgerCrypto

/// The options every command accepts (docs/cli.md), each also read from a `TIPLEDGER_*`
/// environment variable (`GlobalOption`); a flag wins over its variable.
struct GlobalOptions {
    /// Output format names a command may accept.
    enum Format: String {
        case text, json, csv, html
    }

    var databasePath: String
    var bundleIds: [String]
    /// Where `bundleIds` came from, for messages: the flag or the variable.
    private(set) var bundleIdSource = "--bundle-id"
    var environments: Set<AppStoreEnvironment>
    /// Whether `--environment` itself was given, rather than its variable or nothing.
    var environmentFlagWasGiven = false
    /// Whether `--environment` or its variable was given (not just the default).
    var environmentsWereGiven: Bool
    /// The environments a query is limited to: those given with `--environment` or its
    /// variable, sorted; nil (all of them) when none were given. Xcode and LocalTesting go
    /// together, as `verify` accepts either under either name.
    var givenEnvironments: [AppStoreEnvironment]? {
        environmentsWereGiven ? AppStoreEnvironment.queryScope(environments) : nil
    }
    var appAppleId: Int64?
    var rootFiles: [String]
    var keysDirectory: String?
    var format: Format
    var catalogPath: String?
    /// `--online-checks`: revocation checks online and what a missing answer means; nil when
    /// off (docs/verification.md).
    var onlineChecks: OnlineChecks.Mode?
    /// `TIPLEDGER_LISTEN`, read by `serve` and `health` (which also take `--listen`).
    var listen: String?
    /// `TIPLEDGER_REPLICATED`: whether a replicator (Litestream) reads the ledger's write-ahead
    /// log and checkpoints it, so that tipledger leaves the log to it (docs/operations.md).
    var replicated = false

    /// The global options' usage text.
    static var usage: String { GlobalOption.usage }

    init(scanner: inout ArgumentScanner, environment: [String: String]) throws {
        /// The environment variable `name`, unless it is unset or empty.
        func variable(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        func setting(_ option: GlobalOption) throws -> String? {
            try sourced(option)?.value
        }
        /// The path the flag gives (never empty), else its variable's.
        func pathSetting(_ option: GlobalOption, to kind: ArgumentScanner.PathKind) throws -> String? {
            if let path = try scanner.path(option.flag, to: kind) { return path }
            return option.variable.flatMap { variable($0) }
        }
        /// The flag's value, else its variable's, with the name to blame for a bad one.
        func sourced(_ option: GlobalOption) throws -> (value: String, source: String)? {
            if let value = try scanner.value(option.flag) { return (value, option.flag) }
            return option.variable.flatMap { name in variable(name).map { ($0, name) } }
        }
        databasePath = try FileInput.databaseFile(
            try setting(.database) ?? "tipledger.sqlite", for: GlobalOption.database.flag, command: scanner.command)
        let bundleIdList = try sourced(.bundleIds)
        bundleIdSource = bundleIdList?.source ?? GlobalOption.bundleIds.flag
        // Empty entries (a trailing comma) are dropped; the others are checked where they are
        // used (`verificationPolicy`), so a bad one fails only the commands that verify.
        bundleIds =
            bundleIdList.map { $0.value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty } }
            ?? []
        let givenEnvironments = try sourced(.environments)
        environmentFlagWasGiven = givenEnvironments?.source == GlobalOption.environments.flag
        environmentsWereGiven = givenEnvironments != nil
        let environmentList = givenEnvironments?.value ?? "Production"
        guard let environments = AppStoreEnvironment.parseList(environmentList) else {
            throw CLIError.usage(
                "\(givenEnvironments?.source ?? GlobalOption.environments.flag) must list Production, Sandbox, Xcode or LocalTesting, separated by commas, not '\(environmentList)'",
                command: scanner.command)
        }
        self.environments = environments
        if let (text, source) = try sourced(.appAppleId) {
            guard let number = Int64(text), number > 0 else {
                throw CLIError.usage(
                    "\(source) must be a positive whole number, not '\(text)'", command: scanner.command)
            }
            appAppleId = number
        }
        rootFiles = try scanner.paths(GlobalOption.root.flag, to: .file)
        // `--root` and `--keys` both stand for TIPLEDGER_KEYS: either flag puts it aside (both
        // flags together trust both).
        keysDirectory =
            rootFiles.isEmpty
            ? try pathSetting(.keys, to: .directory) : try scanner.path(GlobalOption.keys.flag, to: .directory)
        catalogPath = try pathSetting(.catalog, to: .file)
        // `--online-checks best-effort` would leave the mode behind as a stray argument.
        if let flag = scanner.arguments.firstIndex(of: GlobalOption.onlineChecks.flag),
            let next = scanner.arguments.dropFirst(flag + 1).first,
            OnlineChecks.Mode(rawValue: next) != nil || next == "off"
        {
            throw CLIError.usage(
                "\(GlobalOption.onlineChecks.flag) takes its mode after '=': \(GlobalOption.onlineChecks.flag)=\(next)",
                command: scanner.command)
        }
        onlineChecks = try Self.onlineChecks(
            flag: try scanner.optionalValue(GlobalOption.onlineChecks.flag, bare: OnlineChecks.Mode.strict.rawValue),
            variable: variable("TIPLEDGER_ONLINE_CHECKS"), command: scanner.command)
        listen = variable("TIPLEDGER_LISTEN")
        if let text = variable("TIPLEDGER_REPLICATED") {
            switch text.lowercased() {
            case "1", "true", "yes": replicated = true
            case "0", "false", "no": replicated = false
            default:
                throw CLIError.usage(
                    "TIPLEDGER_REPLICATED must be 1 (Litestream replicates the ledger) or 0, not '\(text)'",
                    command: scanner.command)
            }
        }
        let formatName = try setting(.format) ?? "text"
        guard let format = Format(rawValue: formatName) else {
            throw CLIError.usage(
                "--format must be text, json, csv or html, not '\(formatName)'", command: scanner.command)
        }
        self.format = format
    }

    /// The online checks' mode from the flag's value, else the variable's: `strict`,
    /// `best-effort` or `off`; the variable also takes `1`/`true`/`yes` for the bare flag's
    /// `strict` and `0`/`false`/`no` for `off`.
    private static func onlineChecks(flag: String?, variable: String?, command: String?) throws -> OnlineChecks.Mode? {
        guard let text = flag ?? variable else { return nil }
        let word = text.lowercased()
        if flag == nil && ["1", "true", "yes"].contains(word) { return .strict }
        if flag == nil && ["0", "false", "no"].contains(word) { return nil }
        switch word {
        case "strict": return .strict
        case "best-effort": return .bestEffort
        case "off": return nil
        default:
            let source = flag == nil ? "TIPLEDGER_ONLINE_CHECKS" : GlobalOption.onlineChecks.flag
            throw CLIError.usage(
                "\(source) must be strict, best-effort or off, not '\(text)'", command: command)
        }
    }

    /// Whether `text` can be a bundle id: letters, digits, hyphens and periods, as App Store
    /// Connect allows.
    static func isBundleId(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                    || byte == 0x2d || byte == 0x2e
            }
    }

    /// The output format, refusing formats the command does not offer.
    func format(allowing allowed: [Format], command: String) throws -> Format {
        guard allowed.contains(format) else {
            throw CLIError.usage(
                "\(command) prints \(allowed.map(\.rawValue).joined(separator: " or ")), not \(format.rawValue)",
                command: command)
        }
        return format
    }

    /// The verification policy these options describe; fails when a required setting is missing.
    func verificationPolicy(command: String) throws -> VerificationPolicy {
        if let bad = bundleIds.first(where: { !Self.isBundleId($0) }) {
            throw CLIError.usage(
                "\(bundleIdSource) lists '\(bad)', which is no bundle id (letters, digits, '-' and '.')",
                command: command)
        }
        guard !bundleIds.isEmpty else {
            throw CLIError(
                .usage, "no bundle id is configured",
                hint: "pass --bundle-id com.example.app or set TIPLEDGER_BUNDLE_ID")
        }
        if environments.contains(.production) && appAppleId == nil {
            throw CLIError(
                .usage, "--app-apple-id is required when the Production environment is accepted",
                hint: "find it in App Store Connect under App Information ▸ Apple ID, or set TIPLEDGER_APP_APPLE_ID")
        }
        return VerificationPolicy(bundleIds: Set(bundleIds), environments: environments, appAppleId: appAppleId)
    }

    /// The trusted roots: `--root` files and `--keys` certificates, else the built-in Apple root.
    func trustStore() throws -> TrustStore {
        var roots: [Certificate] = []
        var files = rootFiles
        if let keysDirectory {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: keysDirectory).sorted()
            } catch {
                throw CLIError(
                    .ioError,
                    "cannot read the keys directory \(keysDirectory): \(FileInput.reason(keysDirectory, directory: true))"
                )
            }
            let certificateFiles = names.filter {
                [".cer", ".der", ".pem", ".crt"].contains(where: $0.lowercased().hasSuffix)
            }
            guard !certificateFiles.isEmpty else {
                throw CLIError(.usage, "the keys directory \(keysDirectory) holds no .cer, .der, .pem or .crt file")
            }
            files += certificateFiles.map { "\(keysDirectory)/\($0)" }
        }
        for file in files {
            let bytes = try FileInput.read(file, limit: 1 << 20)
            let certificates: [Certificate]
            do {
                certificates = try Certificate.parseAll(fileContents: bytes)
            } catch {
                throw CLIError(.usage, "\(file) is not a certificate: \(error)")
            }
            // A keys directory may also hold a chain's intermediate and leaf (as `testkit init`
            // writes them); only self-signed certificates there are roots. Files named with
            // --root are trusted as given.
            let fromDirectory = !rootFiles.contains(file)
            roots += fromDirectory ? certificates.filter(\.isSelfSigned) : certificates
        }
        if keysDirectory != nil && roots.isEmpty {
            throw CLIError(.usage, "the keys directory \(keysDirectory ?? "") holds no self-signed root certificate")
        }
        if roots.isEmpty { roots = [TrustAnchors.appleRootCAG3] }
        do {
            return try TrustStore(roots: roots)
        } catch {
            throw CLIError(.usage, "cannot build the trust store: \(error)")
        }
    }
}

extension StringProtocol {
    /// The text without spaces and tabs around it.
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
