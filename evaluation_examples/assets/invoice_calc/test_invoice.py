import unittest

from invoice import apply_discount, invoice_total, line_total


class InvoiceTest(unittest.TestCase):
    def test_line_total(self):
        self.assertEqual(line_total(2.50, 4), 10.0)

    def test_discount_is_a_percentage(self):
        self.assertAlmostEqual(apply_discount(200.0, 10), 180.0)

    def test_total_without_discount(self):
        self.assertEqual(invoice_total([(10.0, 3), (5.0, 2)]), 48.0)

    def test_total_with_discount(self):
        self.assertEqual(invoice_total([(10.0, 3), (5.0, 2)], discount_percent=25), 36.0)


if __name__ == "__main__":
    unittest.main()
