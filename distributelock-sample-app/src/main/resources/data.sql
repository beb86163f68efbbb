-- Seeds the product once; a later instance must not reset the stock already sold.
INSERT INTO product (id, name, stock)
SELECT 1, 'Limited edition sneakers', 10 FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM product WHERE id = 1);
