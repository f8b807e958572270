// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

/// `tipledger testkit init`: mints a TEST root, intermediate and leaf into a directory.
struct TestkitInitCommand: Command {
    static let name = "testkit init"
    static let summary = "mint a test signing chain"
    static var usage: String { TestkitCommand.usage }

    let directory: String
    let notBefore: Int64?
    let days: Int
    /// As given; nil for the default.
    let leafDays: Int?
    /// Replace a chain already in `directory`.
    let force: Bool

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        guard let directory = try scanner.path("--out", to: .directory) else {
            throw CLIError.usage("testkit init needs --out DIR", command: TestkitCommand.name)
        }
        self.directory = directory
        force = scanner.flag("--force")
        notBefore = try TestkitCommand.date(scanner.value("--not-before"), option: "--not-before")
        days = try scanner.integer("--days", in: 1...36_500) ?? 3650
        leafDays = try scanner.integer("--leaf-days", in: 1...36_500)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let existing = TestkitKeys.files.filter { FileInput.exists("\(directory)/\($0)") }
        if !existing.isEmpty && !force {
            throw CLIError(
                .usage, "\(directory) already holds \(existing.joined(separator: ", "))",
                hint: "choose another --out, or pass --force to replace the chain, which makes every token"
                    + " signed with the old one untrusted")
        }
        let start = (notBefore ?? (context.clock.now().wholeMilliseconds - 365 * 86_400_000)) / 1000
        var options = TestPKI.Options(validFrom: start, validUntil: start + Int64(days) * 86_400)
        options.leafNotAfter = start + Int64(min(leafDays ?? 730, days)) * 86_400
        let pki: TestPKI
        do {
            pki = try TestPKI.mint(options)
        } catch {
            throw CLIError(.internalError, "cannot mint the test chain: \(error)")
        }
        try TestkitKeys.write(pki, to: directory)
        context.terminal.line("wrote a TEST signing chain to \(directory):")
        for (name, certificate) in zip(TestkitKeys.names, [pki.root, pki.intermediate, pki.leaf]) {
            context.terminal.line(
                "  \(name).cer/.pem/.key  \(certificate.subject)  valid \(AppleDate(wholeMilliseconds: certificate.notBefore * 1000))"
                    + " to \(AppleDate(wholeMilliseconds: certificate.notAfter * 1000))")
        }
        context.terminal.line("trust it with --keys \(directory) (or --root \(directory)/root.cer)")
        for hint in hints(pki, now: context.clock.now().wholeMilliseconds / 1000) {
            context.terminal.errorLine("hint: \(hint)")
        }
        return .success
    }

    /// What the options made of the chain that a user may not expect: a leaf cut to the
    /// issuers' validity, or a chain not valid now, whose tokens verify only when signed for a
    /// date inside it.
    private func hints(_ pki: TestPKI, now: Int64) -> [String] {
        var hints: [String] = []
        if let leafDays, leafDays > days {
            hints.append("the leaf is valid for \(days) days, as --days says: a certificate cannot outlive its issuer")
        }
        let from = AppleDate(wholeMilliseconds: pki.leaf.notBefore * 1000)
        let until = AppleDate(wholeMilliseconds: pki.leaf.notAfter * 1000)
        if now >= pki.leaf.notAfter || now < pki.leaf.notBefore {
            hints.append(
                "the leaf is valid from \(from) to \(until), not now: tokens verify only with a --signed-date inside"
                    + " it (else certificate_not_valid_at_signed_date)")
        }
        return hints
    }
}
