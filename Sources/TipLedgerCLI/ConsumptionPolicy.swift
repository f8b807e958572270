// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI

/// How tipledger answers consumption requests (`consumption`, and `serve` by itself): whether
/// the operator says customers consented to sharing their consumption data, which Apple takes
/// answers only with, and the refund outcome the operator prefers, if any.
///
/// `--customers-consented` (`TIPLEDGER_CUSTOMERS_CONSENTED=1`) and `--refund-preference`
/// (`TIPLEDGER_REFUND_PREFERENCE`); flags win over variables.
struct ConsumptionPolicy: Sendable {
    let customersConsented: Bool
    let refundPreference: ConsumptionRequest.RefundPreference?

    static let usage = """
        Consumption answers (each also read from its variable; a flag wins):
          --customers-consented  your customers consented to sharing consumption data
                                 with Apple (say so in the app's terms); without it
                                 nothing is sent [TIPLEDGER_CUSTOMERS_CONSENTED=1]
          --refund-preference P  DECLINE or GRANT_FULL, the outcome you prefer
                                 [TIPLEDGER_REFUND_PREFERENCE] (default: none said)
        """

    /// The flags as given; the variables are read by `resolve`.
    struct Flags {
        let consented: Bool
        let refundPreference: String?

        init(parsing scanner: inout ArgumentScanner) throws {
            consented = scanner.flag("--customers-consented")
            refundPreference = try scanner.value("--refund-preference")
        }

        /// The policy the flags and `environment`'s variables give.
        func resolve(environment: [String: String], command: String) throws -> ConsumptionPolicy {
            var consented = self.consented
            if !consented, let text = environment["TIPLEDGER_CUSTOMERS_CONSENTED"], !text.isEmpty {
                switch text.lowercased() {
                case "1", "true", "yes": consented = true
                case "0", "false", "no": consented = false
                default:
                    throw CLIError.usage(
                        "TIPLEDGER_CUSTOMERS_CONSENTED must be 1 (customers consented) or 0, not '\(text)'",
                        command: command)
                }
            }
            let given =
                refundPreference.map { ($0, "--refund-preference") }
                ?? environment["TIPLEDGER_REFUND_PREFERENCE"].flatMap {
                    $0.isEmpty ? nil : ($0, "TIPLEDGER_REFUND_PREFERENCE")
                }
            var preference: ConsumptionRequest.RefundPreference? = nil
            if let (text, source) = given {
                // A tip is consumed whole on delivery, which leaves nothing to prorate.
                guard let known = ConsumptionRequest.RefundPreference(rawValue: text.uppercased()),
                    known != .grantProrated
                else {
                    throw CLIError.usage("\(source) takes DECLINE or GRANT_FULL, not '\(text)'", command: command)
                }
                preference = known
            }
            return ConsumptionPolicy(customersConsented: consented, refundPreference: preference)
        }
    }
}
