// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerCLI
@testable import TipLedgerPresentation

/// A signed field reaches no output as it is when it could drive a terminal, forge a line or
/// run as a spreadsheet formula: whoever gets a payload signed by a trusted chain (a test chain,
/// an Xcode certificate) may write anything in its `productId`.
@Suite struct OutputEscapingTests {
    /// A product id a signer could write, how text shows it, and its CSV cell.
    struct Product: Sendable, CustomTestStringConvertible {
        let id: String
        let text: String
        let csv: String
        var testDescription: String { text }
    }

    static let products = [
        Product(
            id: "tips\u{1B}[2J\u{1B}]0;owned\u{7}", text: #"tips\u{1B}[2J\u{1B}]0;owned\u{7}"#,
            csv: #""tips\u{1B}[2J\u{1B}]0;owned\u{7}""#),
        Product(id: "tips\u{0}.nul", text: #"tips\u{0}.nul"#, csv: #"tips\u{0}.nul"#),
        Product(
            id: "tips\nline 9: ok transaction Sandbox 1 forged",
            text: #"tips\u{A}line 9: ok transaction Sandbox 1 forged"#,
            csv: #"tips\u{A}line 9: ok transaction Sandbox 1 forged"#),
        Product(id: "tips\u{9B}31m.c1", text: #"tips\u{9B}31m.c1"#, csv: #"tips\u{9B}31m.c1"#),
        Product(id: "\u{7F}tips.del", text: #"\u{7F}tips.del"#, csv: #"\u{7F}tips.del"#),
        Product(id: "tips\u{202E}lanigiro", text: #"tips\u{202E}lanigiro"#, csv: #"tips\u{202E}lanigiro"#),
        Product(id: "tips\u{2028}.separated", text: #"tips\u{2028}.separated"#, csv: #"tips\u{2028}.separated"#),
        Product(
            id: #"=HYPERLINK("http://example.com/","tip")"#, text: #"=HYPERLINK("http://example.com/","tip")"#,
            csv: #""'=HYPERLINK(""http://example.com/"",""tip"")""#),
        Product(id: "+1+1", text: "+1+1", csv: "'+1+1"),
        Product(id: "-1+1", text: "-1+1", csv: "'-1+1"),
        Product(id: "@SUM(1)", text: "@SUM(1)", csv: "'@SUM(1)"),
        Product(id: "\t=1+1", text: #"\u{9}=1+1"#, csv: #"\u{9}=1+1"#),
        Product(id: "\r=1+1", text: #"\u{D}=1+1"#, csv: #"\u{D}=1+1"#),
        Product(id: "tips;=1+1", text: "tips;=1+1", csv: #""tips;=1+1""#),
    ]

    /// The code points of the scalars in `output` that would act on a terminal, but for the
    /// line feeds that end its lines.
    static func unsafe(_ output: String) -> [String] {
        output.unicodeScalars.filter { $0 != "\n" && PrintableText.isUnsafe($0) }.map {
            String($0.value, radix: 16)
        }
    }

    @Test func signedControlCharactersAndFormulasReachNoOutputAsTheyAre() async throws {
        let tokens = try Self.products.indices.map { index in
            try TestChains.transaction(id: "20000000000009\(10 + index)", productId: Self.products[index].id)
        }
        try await TemporaryDirectory.with { directory in
            let root = try directory.write(Data(TestChains.standard.root.derEncoded), to: "root.cer")
            let settings = ["--root", root, "--bundle-id", "com.example.tips", "--environment", "Sandbox"]
            let ledger = ["--db", "l.sqlite"] + settings
            func run(_ arguments: [String], input: String? = nil) async throws -> ProcessOutput {
                try await TipLedgerBinary.run(arguments, input: input.map { .text($0) } ?? .none, in: directory.path)
            }
            let lines = tokens.joined(separator: "\n") + "\n"
            let verified = try await run(["verify", "--no-finish"] + ledger, input: lines)
            let json = try await run(["verify", "--dry-run", "--format", "json"] + settings, input: lines)
            let outputs = [
                ("verify", verified), ("verify --format json", json),
                ("report", try await run(["report"] + ledger)),
                ("report --format csv", try await run(["report", "--format", "csv"] + ledger)),
                ("restore", try await run(["restore", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138"] + ledger)),
                ("pending", try await run(["pending"] + ledger)),
            ]

            for (name, output) in outputs {
                #expect(output.exited(0), "\(name): \(output.summary)")
                #expect(Self.unsafe(output.out).isEmpty, "\(name) prints \(Self.unsafe(output.out)) raw")
                #expect(Self.unsafe(output.err).isEmpty, "\(name) prints \(Self.unsafe(output.err)) raw")
            }
            // One line per input line, each naming its product, plus the summary.
            #expect(verified.outLines.count == tokens.count + 1, "\(verified.out)")
            for (line, product) in zip(verified.outLines, Self.products) {
                #expect(line.contains(" \(product.text) "), "\(line)")
            }
            #expect(try json.jsonLines().map { $0["productId"] as? String } == Self.products.map(\.id))
            for (name, output) in outputs where ["report", "restore", "pending"].contains(name) {
                for product in Self.products {
                    #expect(output.outLines.contains { $0.contains(product.text) }, "\(name): \(product.text)")
                }
            }
            let csv = outputs[3].1.outLines
            #expect(csv.count == Self.products.count + 1, "\(csv)")
            for product in Self.products {
                #expect(csv.contains { $0.hasPrefix("Sandbox,\(product.csv),USD,1,") }, "\(product.csv) in \(csv)")
            }
        }
    }

    /// A CSV cell, whatever it holds, stays one cell of one row, and no spreadsheet runs it.
    @Test(arguments: products)
    func aCSVCellIsEscapedAndGuarded(_ product: Product) {
        #expect(CSV.cell(product.id) == product.csv)
    }
}
