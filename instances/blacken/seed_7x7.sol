The result is 6.
x: 7 y: 4
x: 5 y: 6
x: 3 y: 6
x: 1 y: 4
x: 4 y: 5
x: 4 y: 1

   6   
   B   
   B   
4  B  1
 B 5 B 
  3B2  
       
