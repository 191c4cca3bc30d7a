"""Invoice totals for the shop's order export."""

VAT_RATE = 0.20


def line_total(unit_price, quantity):
    """Price of one order line before VAT."""
    return unit_price * quantity


def apply_discount(subtotal, percent):
    """Takes a discount of `percent` per cent off a subtotal."""
    return subtotal - subtotal * percent


def invoice_total(lines, discount_percent=0):
    """Total of an invoice: the lines, then the discount, then VAT, rounded to cents."""
    subtotal = sum(line_total(price, quantity) for price, quantity in lines)
    discounted = apply_discount(subtotal, discount_percent)
    return round(discounted * (1 + VAT_RATE), 2)
