// SPDX-License-Identifier: GPL-3.0-or-later

/// A global option that takes a value: its flag, the environment variable it is also read from
/// (a flag wins over its variable), and its lines in the usage text. Listed once, in `all`, for
/// the parser (`GlobalOptions`), the command finder (`valueFlags`) and the help (`usage`); see
/// docs/cli.md.
struct GlobalOption: Sendable {
    let flag: String
    /// What the value is, in the usage text.
    let metavar: String
    let variable: String?
    /// The option's description, one usage line each.
    let help: [String]
    /// Whether the value may be left out (`--flag` or `--flag=VALUE`, never `--flag VALUE`).
    var valueIsOptional = false

    static let database = GlobalOption(
        flag: "--db", metavar: "PATH", variable: "TIPLEDGER_DB",
        help: ["ledger file [TIPLEDGER_DB] (default: tipledger.sqlite)"])
    static let bundleIds = GlobalOption(
        flag: "--bundle-id", metavar: "ID[,ID]", variable: "TIPLEDGER_BUNDLE_ID",
        help: ["accepted bundle ids [TIPLEDGER_BUNDLE_ID]"])
    static let environments = GlobalOption(
        flag: "--environment", metavar: "LIST", variable: "TIPLEDGER_ENVIRONMENT",
        help: [
            "accepted environments: Production, Sandbox, Xcode",
            "[TIPLEDGER_ENVIRONMENT] (default: Production; report,",
            "restore, pending, finish and serve's queries keep to",
            "it when given, else cover every environment)",
        ])
    static let appAppleId = GlobalOption(
        flag: "--app-apple-id", metavar: "N", variable: "TIPLEDGER_APP_APPLE_ID",
        help: ["the app's Apple id, required when Production is accepted", "[TIPLEDGER_APP_APPLE_ID]"])
    /// Repeatable; stands for `TIPLEDGER_KEYS` as `--keys` does (see `GlobalOptions.init`).
    static let root = GlobalOption(
        flag: "--root", metavar: "FILE", variable: nil,
        help: ["trust this root certificate (DER or PEM); repeatable;", "TIPLEDGER_KEYS is then not read"])
    static let keys = GlobalOption(
        flag: "--keys", metavar: "DIR", variable: "TIPLEDGER_KEYS",
        help: [
            "trust every self-signed certificate in DIR [TIPLEDGER_KEYS]", "(default: the built-in Apple Root CA - G3)",
        ])
    static let catalog = GlobalOption(
        flag: "--catalog", metavar: "FILE", variable: "TIPLEDGER_CATALOG",
        help: ["Xcode .storekit file for product names and prices", "[TIPLEDGER_CATALOG]"])
    static let onlineChecks = GlobalOption(
        flag: "--online-checks", metavar: "[=MODE]", variable: "TIPLEDGER_ONLINE_CHECKS",
        help: [
            "ask each certificate's OCSP responder whether it is",
            "revoked, checking the chain at the current time; MODE:",
            "strict (the bare flag's: no answer rejects), best-effort",
            "(no answer verifies offline) or off (the default)",
            "[TIPLEDGER_ONLINE_CHECKS]",
        ], valueIsOptional: true)
    static let format = GlobalOption(
        flag: "--format", metavar: "FORMAT", variable: nil, help: ["text or json (report also takes csv and html)"])

    /// Every global option that takes a value, in the order the usage lists them.
    static let all = [database, bundleIds, environments, appAppleId, root, keys, catalog, onlineChecks, format]

    /// The flags of `all` that take the next argument as their value, which is never the command.
    static let valueFlags = Set(all.filter { !$0.valueIsOptional }.map(\.flag))

    /// The usage text of the global options.
    static let usage: String = {
        let column = 23
        func line(_ head: String, _ text: String) -> String {
            "  " + head + String(repeating: " ", count: max(1, column - head.count)) + text
        }
        var lines = ["Global options (all but --format also read from the environment; a flag wins):"]
        for option in all {
            let head = option.flag + (option.valueIsOptional ? "" : " ") + option.metavar
            lines.append(line(head, option.help[0]))
            lines += option.help.dropFirst().map { line("", $0) }
        }
        lines.append(line("-h, --help", "show help"))
        return lines.joined(separator: "\n")
    }()
}
