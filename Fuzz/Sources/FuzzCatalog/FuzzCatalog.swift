// SPDX-License-Identifier: GPL-3.0-or-later
internal import FuzzSupport
internal import TipLedgerCore

/// The `.storekit` catalog reader (`--catalog`).
///
/// Properties: a catalog that is read has products with distinct, non-empty ids, each found by
/// its id, none priced below zero; a price reads as its whole and fraction digits (`"2.5"` is
/// 2500 milliunits) and writes back as the same number.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let catalog = try? StoreKitCatalog(json: bytes) {
        Property.require(!catalog.products.isEmpty, "a catalog without products")
        Property.require(
            Set(catalog.products.map(\.productId)).count == catalog.products.count, "two products with one id")
        for product in catalog.products {
            Property.require(!product.productId.isEmpty, "a product without an id")
            Property.require(catalog.product(product.productId) == product, "a product not found by its id")
            Property.require(product.priceMilli >= 0, "a negative price")
        }
    }
    if let text = String(validating: bytes, as: UTF8.self), let milli = StoreKitCatalog.decimalMilliunits(text) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        let digits = String(parts[0]) + fraction + String(repeating: "0", count: 3 - fraction.count)
        Property.require(Int64(digits) == milli, "\(text) reads as \(milli)")
        let written = "\(milli / 1000).\(String(milli % 1000 + 1000).dropFirst())"
        Property.require(StoreKitCatalog.decimalMilliunits(written) == milli, "\(written) reads back otherwise")
    }
    return 0
}
