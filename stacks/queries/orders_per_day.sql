-- Orders per day of the last week: what the sales dashboard shows and the alert watches.
SELECT order_date AS day, count(*) AS n
FROM orders
WHERE order_date >= date_sub(current_date(), 7)
GROUP BY order_date
ORDER BY day
